import type { Tool, ToolChunk, ToolContext } from "../../src/tool/index.js";

export function toolContext(signal: AbortSignal = new AbortController().signal): ToolContext {
  return {
    signal,
    sessionId: "session-1",
    replyId: "reply-1",
    toolCallId: "call-1",
    state: {},
    permission: { mode: "default", rules: [], workingDirectories: [] },
    requestStop() {},
  };
}

/** Parses the arguments like the agent does, runs the tool, and gathers what it streamed or returned. */
export async function runTool(tool: Tool, input: unknown, signal?: AbortSignal): Promise<ToolChunk[]> {
  const output = await tool.call(tool.parse(input), toolContext(signal));
  if (output && typeof (output as AsyncIterable<ToolChunk>)[Symbol.asyncIterator] === "function") {
    const chunks: ToolChunk[] = [];
    for await (const chunk of output as AsyncIterable<ToolChunk>) chunks.push(chunk);
    return chunks;
  }
  return [output as ToolChunk];
}

export function textOfChunks(chunks: ToolChunk[]): string {
  return chunks
    .map((chunk) => (typeof chunk === "string" ? chunk : chunk.type === "text" ? chunk.text : ""))
    .join("");
}
