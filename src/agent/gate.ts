import type { RequireUserConfirmEvent } from "../event/index.js";
import { type ToolCallBlock, toErrorInfo } from "../message/index.js";
import {
  type Approval,
  type CallVerdict,
  type DecidedCall,
  decideCall,
  type PermissionDecision,
} from "../permission/index.js";
import { type Tool, ToolInputError } from "../tool/index.js";
import { recordVerdict } from "./decision-records.js";
import type { ReplyRun } from "./reply-run.js";
import { writeResult } from "./result-events.js";

/** A call that asks for a person's approval, with the decision that asks. */
export type Ask = { call: ToolCallBlock; decision: PermissionDecision };

/**
 * A call the gate let through: it runs (or is submitted) only under its DecidedCall, with the
 * arguments the gate parsed (`input`) from the call's text as it was then (`raw`).
 */
export type Admitted = { call: ToolCallBlock; tool: Tool; decided: DecidedCall; input: unknown; raw: string };

/**
 * Validates a call and passes it through the one gate (`decideCall`) for the input it has now.
 * Returns the call with its DecidedCall when it may run (or be submitted); writes an error or
 * denied result, or records an ask, otherwise. An approved call ("allowed" after an answer) is
 * decided with the person's approval: unchanged it runs unless denied; edited it runs when allowed
 * or when it needs the very ask the person answered, is denied like any call, and asks again when
 * it needs another ask. An "allowed" call without an approval of this run is decided afresh.
 */
export async function gate(run: ReplyRun, call: ToolCallBlock, asks: Ask[]): Promise<Admitted | undefined> {
  const approval = call.state === "allowed" ? run.approvals.get(call.id) : undefined;
  run.approvals.delete(call.id);
  const tool = run.findTool(call.name);
  if (!tool) {
    const names = run.toolNames().join(", ") || "none";
    writeResult(
      run,
      call,
      "error",
      `Error: there is no tool named "${call.name}". Available tools: ${names}.`,
    );
    return undefined;
  }
  const parsed = parseArguments(call, tool);
  if ("error" in parsed) {
    writeResult(run, call, "error", parsed.error);
    return undefined;
  }
  let verdict: CallVerdict;
  try {
    verdict = await decide(run, call, tool, parsed.value, approval);
  } catch (error) {
    writeResult(run, call, "error", `Error: the permission check failed: ${toErrorInfo(error).message}`);
    return undefined;
  }
  if (verdict.behavior === "deny") {
    recordVerdict(run, call, "deny", verdict.decision);
    const what = approval?.edited ? " (the call as edited in the answer)" : "";
    writeResult(run, call, "denied", `Permission denied${what}: ${verdict.decision.reason}`);
    return undefined;
  }
  if (verdict.behavior === "ask") {
    asks.push({ call, decision: verdict.decision });
    return undefined;
  }
  // A rule that lets the call run is a decision on record; so is a person's approval (at the answer).
  if (verdict.decision.rule && !approval) recordVerdict(run, call, "allow", verdict.decision);
  return { call, tool, decided: verdict.decided, input: parsed.value, raw: call.input };
}

/**
 * The one gate with this agent's decider (the engine, a custom `decidePermission`, and the
 * middleware `onPermission` chain around it). The answer tool of structured output only records the answer.
 */
export function decide(
  run: ReplyRun,
  call: ToolCallBlock,
  tool: Tool,
  input: unknown,
  approval?: Approval,
): Promise<CallVerdict> {
  const stages = run.stages;
  return decideCall({
    call,
    subject: tool,
    input,
    context: run.state.permission,
    decide:
      tool === run.output.tool ? recordsTheAnswer : (value, context) => stages.decide(tool, value, context),
    ...(approval ? { approval } : {}),
  });
}

const recordsTheAnswer = async (): Promise<PermissionDecision> => ({
  behavior: "allow",
  reason: "it records the answer",
});

/** The parsed arguments of `call`, or undefined when they do not parse; writes nothing. */
export function quietlyParsed(call: ToolCallBlock, tool: Tool): { value: unknown } | undefined {
  const parsed = parseArguments(call, tool);
  return "value" in parsed ? parsed : undefined;
}

/**
 * The file change an asking call would make, from its tool's `preview` (asks only, never the run
 * path); undefined when the tool declares none, the arguments do not parse, or the preview throws
 * or is malformed.
 */
export function previewOf(
  run: ReplyRun,
  call: ToolCallBlock,
): RequireUserConfirmEvent["toolCalls"][number]["preview"] {
  const tool = run.findTool(call.name);
  if (!tool?.preview) return undefined;
  const parsed = quietlyParsed(call, tool);
  if (!parsed) return undefined;
  try {
    const preview = tool.preview(parsed.value);
    if (typeof preview?.path !== "string" || typeof preview.after !== "string") return undefined;
    if (preview.before !== undefined && typeof preview.before !== "string") return undefined;
    return preview.before === undefined
      ? { path: preview.path, after: preview.after }
      : { path: preview.path, before: preview.before, after: preview.after };
  } catch {
    return undefined;
  }
}

/** The engine's decision for `call` as it stands (no approval), or undefined when there is none to make. */
export async function currentDecision(
  run: ReplyRun,
  call: ToolCallBlock,
): Promise<PermissionDecision | undefined> {
  const tool = run.findTool(call.name);
  if (!tool) return undefined;
  const parsed = quietlyParsed(call, tool);
  if (!parsed) return undefined;
  try {
    return (await decide(run, call, tool, parsed.value)).decision;
  } catch {
    return undefined;
  }
}

/** The call's arguments as its tool parses them, or the error result the model reads. */
function parseArguments(call: ToolCallBlock, tool: Tool): { value: unknown } | { error: string } {
  let args: unknown;
  try {
    args = call.input.trim() === "" ? {} : JSON.parse(call.input);
  } catch (error) {
    return {
      error: `Error: the arguments are not valid JSON (${(error as Error).message}). Send a JSON object.`,
    };
  }
  try {
    return { value: tool.parse(args) };
  } catch (error) {
    const detail = error instanceof ToolInputError ? error.message : toErrorInfo(error).message;
    return { error: `Error: invalid arguments for ${tool.name}: ${detail}` };
  }
}
