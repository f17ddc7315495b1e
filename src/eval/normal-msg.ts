import type { Msg, ToolResultOutput } from "../message/index.js";
import type { ToolSchema } from "../model/index.js";
import type { NormalMsg, RecordedRequest } from "./case.js";

/** Tool arguments as data: parsed JSON, or the raw string when it is not JSON. */
export function parseArguments(input: string): unknown {
  try {
    return JSON.parse(input);
  } catch {
    return input;
  }
}

/** A tool result's output as text (data parts as `[data mediaType]`). */
export function outputText(output: ToolResultOutput): string {
  if (typeof output === "string") return output;
  return output
    .map((part) => (part.type === "text" ? part.text : `[data ${part.source.mediaType}]`))
    .join("");
}

/** A Msg reduced to what a regression compares (see NormalMsg). */
export function normalizeMsg(msg: Msg): NormalMsg {
  const text: string[] = [];
  const toolCalls: NonNullable<NormalMsg["toolCalls"]> = [];
  const toolResults: NonNullable<NormalMsg["toolResults"]> = [];
  const data: string[] = [];
  for (const block of msg.content) {
    if (block.type === "text") text.push(block.text);
    else if (block.type === "tool_call")
      toolCalls.push({ name: block.name, input: parseArguments(block.input) });
    else if (block.type === "tool_result")
      toolResults.push({ name: block.name, state: block.state, output: outputText(block.output) });
    else if (block.type === "data")
      data.push(`${block.source.mediaType ?? "data"}${block.name ? ` ${block.name}` : ""}`);
  }
  const out: NormalMsg = { role: msg.role };
  if (text.length > 0) out.text = text.join("\n");
  if (toolCalls.length > 0) out.toolCalls = toolCalls;
  if (toolResults.length > 0) out.toolResults = toolResults;
  if (data.length > 0) out.data = data;
  return out;
}

/** A model request as recorded: the system prompt apart, the tools by name, the rest normalised. */
export function normalizeRequest(
  messages: readonly Msg[],
  tools: readonly ToolSchema[] = [],
): RecordedRequest {
  const system = messages
    .filter((msg) => msg.role === "system")
    .map((msg) => normalizeMsg(msg).text ?? "")
    .join("\n\n");
  return {
    system,
    tools: tools.map((tool) => tool.name),
    // The reply in flight is sent with no blocks before the model's first answer: nothing to compare.
    messages: messages.filter((msg) => msg.role !== "system" && msg.content.length > 0).map(normalizeMsg),
  };
}
