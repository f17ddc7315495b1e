import { newId, type ToolCallBlock, type ToolResultBlock } from "../../message/index.js";
import { jsonInput, providerCall, providerResult } from "../provider-kit/provider-runs.js";
import type { GeminiPart } from "./gemini-wire.js";

/**
 * Gemini code execution: an `executableCode` part and the `codeExecutionResult` part(s) after it
 * become a provider-executed tool_call (`code_execution`, the part in `providerData`, its
 * thoughtSignature included) and one tool_result (the result parts, in order, in `providerData`).
 * The formatter puts the parts back in the model turn where they were.
 */

const PROVIDER = "gemini";
const NAME = "code_execution";

export interface WireCodePart {
  executableCode?: { id?: string; language?: string; code?: string };
  codeExecutionResult?: { id?: string; outcome?: string; output?: string };
}

/** The call of an `executableCode` part. */
export function codeCall(part: WireCodePart): ToolCallBlock {
  const code = part.executableCode ?? {};
  return providerCall(
    PROVIDER,
    code.id || newId("exec"),
    NAME,
    jsonInput({ language: code.language, code: code.code ?? "" }),
    part,
  );
}

function resultText(part: WireCodePart): string {
  const result = part.codeExecutionResult ?? {};
  const output = result.output ?? "";
  const outcome = result.outcome ?? "OUTCOME_OK";
  return outcome === "OUTCOME_OK" ? output || "(no output)" : `${output}${output ? "\n" : ""}(${outcome})`;
}

/**
 * Adds a `codeExecutionResult` part to the result of `call` (a run may report several), or starts
 * that result. Returns the result block when it is new.
 */
export function addCodeResult(
  part: WireCodePart,
  call: ToolCallBlock | undefined,
  current: ToolResultBlock | undefined,
): ToolResultBlock | undefined {
  const failed = (part.codeExecutionResult?.outcome ?? "OUTCOME_OK") !== "OUTCOME_OK";
  if (current !== undefined && Array.isArray(current.providerData)) {
    current.providerData.push(part);
    current.output = `${current.output as string}\n${resultText(part)}`;
    if (failed) current.state = "error";
    return undefined;
  }
  const id = call?.id ?? part.codeExecutionResult?.id ?? newId("exec");
  return providerResult(PROVIDER, id, NAME, resultText(part), failed, [part]);
}

/** The parts of one of Gemini's own code runs, as they came (copies: signatures are written into parts). */
export function codeRunParts(block: ToolCallBlock | ToolResultBlock): GeminiPart[] {
  if (block.provider !== PROVIDER) return [];
  const data = block.type === "tool_call" ? [block.providerData] : block.providerData;
  if (!Array.isArray(data)) return [];
  // The API's own parts, opaque here: sent back as they were received.
  return data
    .filter((part): part is Record<string, unknown> => typeof part === "object" && part !== null)
    .map((part) => ({ ...part }) as GeminiPart);
}
