import type { ToolCallBlock, ToolResultBlock, ToolResultOutput } from "../../message/index.js";

/**
 * Built-in tool runs (web search, code execution, ... the provider runs itself) as reply blocks: a
 * tool_call and a tool_result with `executedBy: "provider"`, the provider's wire item in
 * `providerData` for the round trip, and a readable output for people and for other providers.
 */

/** The tool_call of a provider's built-in tool run (`finished`: there is nothing for the agent to do). */
export function providerCall(
  provider: string,
  id: string,
  name: string,
  input: string,
  providerData: unknown,
): ToolCallBlock {
  const call: ToolCallBlock = {
    type: "tool_call",
    id,
    name,
    input,
    state: "finished",
    executedBy: "provider",
    provider,
  };
  if (providerData !== undefined) call.providerData = providerData;
  return call;
}

/** The tool_result of a provider's built-in tool run. */
export function providerResult(
  provider: string,
  id: string,
  name: string,
  output: ToolResultOutput,
  failed: boolean,
  providerData: unknown,
): ToolResultBlock {
  const result: ToolResultBlock = {
    type: "tool_result",
    id,
    name,
    output,
    state: failed ? "error" : "success",
    executedBy: "provider",
    provider,
  };
  if (providerData !== undefined) result.providerData = providerData;
  return result;
}

/** JSON text of a value, or `{}` when it is not there. */
export function jsonInput(value: unknown): string {
  return value === undefined || value === null ? "{}" : JSON.stringify(value);
}

/** A result's text output (its text parts joined). */
export function outputText(output: ToolResultOutput): string {
  if (typeof output === "string") return output;
  return output
    .map((part) => (part.type === "text" ? part.text : `[${part.source.mediaType ?? "file"}]`))
    .join("\n");
}

/**
 * A provider's run as text, for a model that cannot take the run back as it came (another
 * provider, or an API without built-in tools): what was run, with what input, and what came out.
 */
export function providerRunText(result: ToolResultBlock, call: ToolCallBlock | undefined): string {
  const input = call !== undefined && call.input !== "" && call.input !== "{}" ? ` ${call.input}` : "";
  const by = result.provider === undefined ? "" : ` (run by ${result.provider})`;
  const failed = result.state === "error" ? " failed" : "";
  return `[built-in tool ${result.name}${input}${by}${failed}]\n${outputText(result.output)}`.trimEnd();
}
