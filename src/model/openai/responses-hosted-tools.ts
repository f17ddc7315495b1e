import type { DataBlock, Msg, TextBlock, ToolCallBlock, ToolResultBlock } from "../../message/index.js";
import { jsonInput, providerCall, providerResult } from "../provider-kit/provider-runs.js";
import type { OpenAIResponsesInputItem } from "./responses-wire.js";

/**
 * Responses hosted tool runs (`web_search_call`, `file_search_call`, `code_interpreter_call`,
 * `image_generation_call` output items): each item becomes a provider-executed tool_call (the item,
 * as sent, in `providerData`) and its tool_result (a readable output; the generated image as a data
 * block). The formatter sends the item back in place. A generated image is kept once: in the
 * result's data block, and put back into the item's `result` on the way out.
 */

type Json = Record<string, unknown>;
const isObject = (value: unknown): value is Json => typeof value === "object" && value !== null;
const str = (value: unknown): string | undefined => (typeof value === "string" ? value : undefined);

const HOSTED_TOOLS: Readonly<Record<string, string>> = {
  web_search_call: "web_search",
  file_search_call: "file_search",
  code_interpreter_call: "code_interpreter",
  image_generation_call: "image_generation",
};

/** The built-in tool name of a hosted tool item type, or undefined for any other item. */
export function hostedToolName(itemType: unknown): string | undefined {
  return typeof itemType === "string" ? HOSTED_TOOLS[itemType] : undefined;
}

function webSearch(item: Json): { input: unknown; output: string } {
  const action = isObject(item.action) ? item.action : {};
  const { sources, ...input } = action;
  const lines: string[] = [];
  if (action.type === "open_page") lines.push(`Opened ${str(action.url) ?? ""}`);
  else if (action.type === "find_in_page")
    lines.push(`Looked for "${str(action.pattern) ?? ""}" in ${str(action.url) ?? ""}`);
  else if (str(action.query)) lines.push(`Searched: ${action.query}`);
  if (Array.isArray(sources))
    for (const source of sources) if (isObject(source) && str(source.url)) lines.push(`- ${source.url}`);
  return { input, output: lines.join("\n") || "Searched the web" };
}

function fileSearch(item: Json): { input: unknown; output: string } {
  const results = Array.isArray(item.results) ? item.results.filter(isObject) : [];
  const lines = results.map(
    (r) =>
      `- ${str(r.filename) ?? str(r.file_id) ?? "file"}${typeof r.score === "number" ? ` (score ${r.score})` : ""}`,
  );
  return { input: { queries: item.queries ?? [] }, output: lines.join("\n") || "Searched the files" };
}

function codeInterpreter(item: Json): { input: unknown; output: string } {
  const input: Json = { code: str(item.code) ?? "" };
  if (str(item.container_id)) input.container_id = item.container_id;
  const outputs = Array.isArray(item.outputs) ? item.outputs.filter(isObject) : [];
  const lines = outputs.map((o) => (o.type === "logs" ? (str(o.logs) ?? "") : `[image ${str(o.url) ?? ""}]`));
  return { input, output: lines.join("\n") || "(no output)" };
}

/** A hosted tool item (`response.output_item.done`) as its tool_call and tool_result. */
export function hostedRun(provider: string, item: Json): [ToolCallBlock, ToolResultBlock] {
  const id = str(item.id) ?? "";
  const name = hostedToolName(item.type) ?? String(item.type);
  const failed = item.status === "failed";
  if (name === "image_generation") {
    const { result, ...rest } = item;
    const call = providerCall(
      provider,
      id,
      name,
      jsonInput(item.revised_prompt ? { prompt: item.revised_prompt } : {}),
      rest,
    );
    if (typeof result !== "string" || result === "")
      return [call, providerResult(provider, id, name, "(no image)", failed, undefined)];
    const image: DataBlock = {
      type: "data",
      id: `${id}:image`,
      source: { type: "base64", mediaType: `image/${str(item.output_format) ?? "png"}`, data: result },
    };
    const note: TextBlock = { type: "text", id: `${id}:note`, text: "Generated an image." };
    return [call, providerResult(provider, id, name, [note, image], failed, undefined)];
  }
  const run =
    name === "web_search"
      ? webSearch(item)
      : name === "file_search"
        ? fileSearch(item)
        : codeInterpreter(item);
  return [
    providerCall(provider, id, name, jsonInput(run.input), item),
    providerResult(provider, id, name, run.output, failed, undefined),
  ];
}

/**
 * The input item of one of this provider's hosted tool runs, as the API sent it (undefined for a
 * run of another provider or one without its item). A generated image goes back into `result`.
 */
export function hostedItem(
  call: ToolCallBlock,
  msg: Msg,
  provider: string,
): OpenAIResponsesInputItem | undefined {
  if (call.provider !== provider || !isObject(call.providerData)) return undefined;
  const item: Json = { ...call.providerData };
  if (item.type === "image_generation_call" && item.result === undefined) {
    const result = msg.content.find((b) => b.type === "tool_result" && b.id === call.id);
    const output = result?.type === "tool_result" && Array.isArray(result.output) ? result.output : [];
    const image = output.find((part) => part.type === "data" && part.source.type === "base64");
    if (image?.type === "data" && image.source.type === "base64") item.result = image.source.data;
  }
  // The API's own item, opaque here: sent back as it was received.
  return item as unknown as OpenAIResponsesInputItem;
}
