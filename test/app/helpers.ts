import { z } from "zod";
import type { AgentEvent } from "../../src/event/index.js";
import { functionTool, type Tool } from "../../src/tool/index.js";

export interface Frame {
  id?: number;
  event?: string;
  data?: AgentEvent;
  comment?: string;
}

/** Parses raw SSE text into frames (separated by a blank line). */
export function parseFrames(text: string): Frame[] {
  const frames: Frame[] = [];
  for (const block of text.split("\n\n")) {
    if (block.trim() === "") continue;
    const frame: Frame = {};
    for (const line of block.split("\n")) {
      if (line.startsWith(":")) frame.comment = line.slice(1).trim();
      else if (line.startsWith("id: ")) frame.id = Number(line.slice(4));
      else if (line.startsWith("event: ")) frame.event = line.slice(7);
      else if (line.startsWith("data: ")) frame.data = JSON.parse(line.slice(6));
    }
    frames.push(frame);
  }
  return frames;
}

/**
 * Reads an SSE response until `stop(frame)` says so (then cancels), the stream ends, or `timeoutMs`
 * passes. Returns the frames that carry events, plus the raw text.
 */
export async function readSse(
  response: Response,
  stop: (frame: Frame) => boolean = () => false,
  timeoutMs = 5000,
): Promise<{ frames: Frame[]; raw: string; comments: string[] }> {
  const reader = response.body!.getReader();
  const decoder = new TextDecoder();
  let raw = "";
  const timer = setTimeout(() => void reader.cancel(), timeoutMs);
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      raw += decoder.decode(value, { stream: true });
      const complete = raw.slice(0, raw.lastIndexOf("\n\n") + 2);
      if (parseFrames(complete).some(stop)) {
        await reader.cancel();
        break;
      }
    }
  } finally {
    clearTimeout(timer);
  }
  const complete = raw.slice(0, raw.lastIndexOf("\n\n") + 2);
  const all = parseFrames(complete);
  return {
    frames: all.filter((f) => f.id !== undefined),
    raw,
    comments: all.filter((f) => f.comment !== undefined).map((f) => f.comment!),
  };
}

export const isType = (type: string) => (frame: Frame) => frame.event === type;

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** A response body as loosely typed JSON, for assertions. */
// biome-ignore lint/suspicious/noExplicitAny: test assertions on JSON bodies
export async function json(response: Response | Promise<Response>): Promise<any> {
  return (await response).json();
}

/** A `write_note` tool (not read-only, so it asks) and the notes it wrote, for service tests. */
export function recordedNotes(): { notes: string[]; writeNote: Tool } {
  const notes: string[] = [];
  const writeNote = functionTool({
    name: "write_note",
    description: "Writes a note",
    input: z.object({ text: z.string() }),
    execute: ({ text }) => {
      notes.push(text);
      return `wrote ${text}`;
    },
  });
  return { notes, writeNote };
}
