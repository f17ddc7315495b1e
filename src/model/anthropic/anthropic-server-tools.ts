import type { ToolCallBlock, ToolResultBlock } from "../../message/index.js";
import { parseToolInput } from "../provider-kit/tool-input.js";
import type { AnthropicPart } from "./anthropic-wire.js";

/**
 * Anthropic server tools (web search, web fetch, code execution and its bash / text-editor
 * variants, MCP connector): a `server_tool_use` (or `mcp_tool_use`) block and its `*_tool_result`
 * block. They become a provider-executed tool_call / tool_result pair whose `providerData` is the
 * block as the API sent it, and go back in the assistant turn exactly so.
 */

const PROVIDER = "anthropic";

/** Block types of a server-run call. */
export const SERVER_CALL_TYPES: ReadonlySet<string> = new Set(["server_tool_use", "mcp_tool_use"]);

/** Whether a content block is the result of a server-run call. */
export function isServerResult(block: { type?: unknown; tool_use_id?: unknown }): boolean {
  return (
    typeof block.type === "string" &&
    typeof block.tool_use_id === "string" &&
    (block.type.endsWith("_tool_result") || block.type === "mcp_tool_result")
  );
}

/** A server call's block with its streamed input put in (the start block carries `input: {}`). */
export function serverCallData(start: Record<string, unknown>, input: string): Record<string, unknown> {
  return input === "" ? start : { ...start, input: parseToolInput(input) };
}

type Json = Record<string, unknown>;
const isObject = (value: unknown): value is Json => typeof value === "object" && value !== null;
const str = (value: unknown): string | undefined => (typeof value === "string" ? value : undefined);

function codeOutput(content: Json): string {
  const lines: string[] = [];
  const stdout = str(content.stdout);
  const stderr = str(content.stderr);
  if (stdout) lines.push(stdout.trimEnd());
  if (stderr) lines.push(`stderr:\n${stderr.trimEnd()}`);
  if (typeof content.return_code === "number" && content.return_code !== 0)
    lines.push(`exit code ${content.return_code}`);
  const files = Array.isArray(content.content) ? content.content.filter(isObject) : [];
  for (const file of files) if (str(file.file_id)) lines.push(`file ${file.file_id}`);
  return lines.join("\n") || "(no output)";
}

/** A readable output for a `*_tool_result` block, and whether the run failed. */
export function serverResultOutput(block: Json): { output: string; failed: boolean } {
  const content = block.content;
  if (Array.isArray(content)) {
    // Web search results, or an MCP result's text blocks.
    const lines = content.filter(isObject).map((item) => {
      if (item.type === "text") return str(item.text) ?? "";
      const title = str(item.title);
      const url = str(item.url) ?? "";
      return title ? `- ${title} — ${url}` : `- ${url}`;
    });
    return { output: lines.join("\n") || "(no results)", failed: block.is_error === true };
  }
  if (!isObject(content)) return { output: str(content) ?? "(no output)", failed: block.is_error === true };
  const type = str(content.type) ?? "";
  if (type.endsWith("_error")) return { output: `error: ${str(content.error_code) ?? type}`, failed: true };
  if (type === "web_fetch_result") {
    const document = isObject(content.content) ? content.content : {};
    const title = str(document.title);
    return { output: `Fetched ${str(content.url) ?? ""}${title ? ` — ${title}` : ""}`, failed: false };
  }
  if (type.endsWith("code_execution_result")) return { output: codeOutput(content), failed: false };
  if (type === "text_editor_code_execution_view_result")
    return { output: str(content.content) ?? "", failed: false };
  if (type === "text_editor_code_execution_create_result")
    return { output: content.is_file_update ? "file updated" : "file created", failed: false };
  if (type === "text_editor_code_execution_str_replace_result") {
    const lines = Array.isArray(content.lines) ? content.lines.filter((l) => typeof l === "string") : [];
    return { output: lines.join("\n") || "file edited", failed: false };
  }
  return { output: JSON.stringify(content), failed: false };
}

/**
 * A provider-executed block as the part it came as, when it is Anthropic's (undefined otherwise).
 * A copy: cache breakpoints are written into parts, never into the stored block.
 */
export function serverToolPart(block: ToolCallBlock | ToolResultBlock): AnthropicPart | undefined {
  if (block.provider !== PROVIDER || !isObject(block.providerData)) return undefined;
  // The API's own block, opaque here: sent back as it was received.
  return { ...block.providerData } as unknown as AnthropicPart;
}
