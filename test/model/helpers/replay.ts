import { readFileSync } from "node:fs";

/**
 * Replays a wire body (an SSE stream as the provider sent it) byte for byte, three ways: one event
 * per write, every write cut inside a multi-byte UTF-8 character where it has one, and the whole body
 * in one write. The parser must give the same result each way.
 */
export type ReplayMode = "event per write" | "split mid-UTF-8" | "whole body";
export const REPLAY_MODES: ReplayMode[] = ["event per write", "split mid-UTF-8", "whole body"];

const FIXTURES = new URL("../fixtures/wire/", import.meta.url);

/** The raw bytes of a wire fixture (`test/model/fixtures/wire/<name>`). */
export function wireBody(name: string): string {
  return readFileSync(new URL(name, FIXTURES), "utf8");
}

/** The writes that replay `body` in `mode`. */
export function replayFrames(body: string, mode: ReplayMode): Array<string | Uint8Array> {
  if (mode === "whole body") return [Buffer.from(body, "utf8")];
  const events = splitEvents(body);
  if (mode === "event per write") return events;
  return events.flatMap((event) => splitInsideCharacter(Buffer.from(event, "utf8")));
}

/** Events with their blank-line terminators (`\n\n` or `\r\n\r\n`), in order, nothing lost. */
function splitEvents(body: string): string[] {
  const parts = body.split(/(?<=\r?\n\r?\n)/);
  if (parts.join("") !== body) throw new Error("splitEvents lost bytes");
  return parts.filter((part) => part !== "");
}

/** Cuts `bytes` after the first byte of its first multi-byte character (or in the middle). */
function splitInsideCharacter(bytes: Buffer): Buffer[] {
  let cut = bytes.findIndex((byte) => byte >= 0xc0);
  cut = cut >= 0 ? cut + 1 : Math.floor(bytes.length / 2);
  if (cut <= 0 || cut >= bytes.length) return [bytes];
  return [bytes.subarray(0, cut), bytes.subarray(cut)];
}

/**
 * Responses API payloads (one JSON event each, as vercel/ai's `saveRawChunks` keeps them) in the
 * Responses SSE framing, `event: <type>` then `data: <payload>`, one body per HTTP response: a file
 * recorded over several steps starts a new body at each `response.created`. Payloads go out as is.
 */
export function responsesBodies(payloads: readonly string[]): string[] {
  const bodies: string[] = [];
  for (const payload of payloads) {
    const type = (JSON.parse(payload) as { type?: unknown }).type;
    if (typeof type !== "string")
      throw new Error(`responsesBodies: a payload without a type: ${payload.slice(0, 80)}`);
    const event = `event: ${type}\ndata: ${payload}\n\n`;
    if (type === "response.created" || bodies.length === 0) bodies.push(event);
    else bodies[bodies.length - 1] += event;
  }
  return bodies;
}
