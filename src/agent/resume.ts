import type {
  AgentEvent,
  ExternalExecutionResultEvent,
  InputEvent,
  UserConfirmResultEvent,
} from "../event/index.js";
import { type ToolCallBlock, toErrorInfo } from "../message/index.js";
import { type Approval, addRules, askKey, type CallVerdict, unofferedRules } from "../permission/index.js";
import type { Tool } from "../tool/index.js";
import { noteAllDenied } from "./act.js";
import { type SortedAnswers, sortAnswers } from "./approver-screen.js";
import { recordAnswers, recordExternal, recordHeld, recordVerdict } from "./decision-records.js";
import { ReplyStateError } from "./errors.js";
import { end, interrupt } from "./finish.js";
import { currentDecision, decide, quietlyParsed } from "./gate.js";
import { openCalls } from "./open-calls.js";
import { expire } from "./pause-deadlines.js";
import { screenChanges } from "./pause-fingerprints.js";
import { checkAnswers, pausedReply } from "./paused-reply.js";
import { replyOutput } from "./reply-output.js";
import type { ReplyRun } from "./reply-run.js";
import { emitOutput, writeResult } from "./result-events.js";
import { runTool } from "./run-tool.js";
import { valueToParts } from "./tool-output.js";

/** An external result that is not taken: the result written instead. */
type Refusal = { state: "denied" | "error"; text: string };

/**
 * Resume: takes an answer to a paused reply. One whose replyId belongs to a nested run continues the
 * call that waits on it; an interrupt also interrupts every nested run; anything else is this reply's
 * own (see `takeAnswer`). Errors about the answer are thrown before anything changes.
 */
export async function resume(run: ReplyRun, input: InputEvent): Promise<void> {
  const reply = run.state.replyContext;
  // A resumed reply keeps the structured-output mode it started with.
  run.output = replyOutput(
    run.options.structuredOutput,
    reply?.structuredOutputMode ?? "tool",
    run.config.model,
  );
  let target = input.replyId ? reply?.suspended?.[input.replyId] : undefined;
  const toThisReply = !input.replyId || input.replyId === reply?.replyId;
  if (reply?.suspended && !target && toThisReply && input.type !== "USER_INTERRUPT") {
    // An answer addressed to this reply (or to none) for calls it does not have: when one call waits
    // on a nested run, that run is what the client answers (it only knew the top-level reply).
    const entries = Object.entries(reply.suspended);
    const last = run.state.context.at(-1);
    const own = new Set(last ? openCalls(last).map((call) => call.id) : []);
    const ids =
      input.type === "USER_CONFIRM_RESULT"
        ? input.confirmResults.map((a) => a.toolCall.id)
        : input.toolResults.map((r) => r.id);
    if (new Set(entries.map(([, e]) => e.toolCallId)).size === 1 && !ids.some((id) => own.has(id))) {
      const [replyId, entry] = entries[0]!;
      target = entry;
      input = { ...input, replyId };
    }
  }
  if (reply && target) {
    run.msg = pausedReply(run.state, { ...input, replyId: reply.replyId });
    delete reply.waitingFor;
    await continueSuspended(run, target.toolCallId, input);
    return;
  }
  if (
    reply?.suspended &&
    input.type === "USER_INTERRUPT" &&
    (!input.replyId || input.replyId === reply.replyId)
  ) {
    run.msg = pausedReply(run.state, input);
    const byCall = new Map<string, string>();
    for (const [replyId, entry] of Object.entries(reply.suspended)) {
      if (!byCall.has(entry.toolCallId)) byCall.set(entry.toolCallId, replyId);
    }
    for (const [toolCallId, replyId] of byCall) {
      await continueSuspended(run, toolCallId, { ...input, replyId });
    }
  }
  await takeAnswer(run, input);
}

/** Runs a suspended call again with the answer for its nested run. */
async function continueSuspended(run: ReplyRun, toolCallId: string, input: InputEvent): Promise<void> {
  const reply = run.state.replyContext!;
  for (const [id, entry] of Object.entries(reply.suspended ?? {})) {
    if (entry.toolCallId === toolCallId) delete reply.suspended![id];
  }
  if (Object.keys(reply.suspended ?? {}).length === 0) delete reply.suspended;
  const call = run.findCall(toolCallId);
  const tool = call ? run.findTool(call.name) : undefined;
  if (!call || !tool) {
    throw new ReplyStateError(`tool call "${toolCallId}" waits on a nested run, but its tool is gone`);
  }
  // It was admitted with this input before it paused; decided again, a deny that came since wins.
  const again = await decideAgain(run, call, tool);
  if (again === undefined || "failure" in again || again.verdict.behavior !== "allow") {
    // Its result is already open: end it (the nested run stays paused and is never continued).
    const reason =
      again === undefined
        ? "Error: its arguments no longer parse"
        : "failure" in again
          ? `Error: the permission check failed: ${again.failure}`
          : `Permission denied: ${again.verdict.decision.reason}`;
    if (again && "verdict" in again) recordVerdict(run, call, "deny", again.verdict.decision);
    run.emit("TOOL_RESULT_TEXT_DELTA", { toolCallId, delta: reason });
    run.emit("TOOL_RESULT_END", { toolCallId, state: again && "verdict" in again ? "denied" : "error" });
    await run.send();
    return;
  }
  const { verdict, input: parsedInput } = again;
  const admitted = { call, tool, decided: verdict.decided, input: parsedInput, raw: call.input };
  await run.sendUntil(runTool(run, admitted, input));
}

/**
 * This reply's own answer: the answer event itself, then for a confirmation the refused calls' denied
 * results (the approved ones run in the next act), for external results the results, for an interrupt
 * the interrupted results and REPLY_END.
 */
async function takeAnswer(run: ReplyRun, input: InputEvent): Promise<void> {
  run.msg = pausedReply(run.state, input);
  checkAnswers(run.msg, input);
  const reply = run.state.replyContext!;
  if (reply.structuredOutput && !run.options.structuredOutput) {
    throw new ReplyStateError(
      `reply "${reply.replyId}" asked for structured output: pass the same schema to resume it`,
    );
  }
  // Expired asks expire first (a late answer is not taken); answers an approver policy does not
  // take are recorded and leave their calls waiting (asked again).
  let sorted: SortedAnswers | undefined;
  if (input.type === "USER_CONFIRM_RESULT") {
    // Answers for calls whose tool is gone fail closed; those whose fingerprint changed are asked again.
    input = screenChanges(run, input);
    sorted = await sortAnswers(run, input);
    input = sorted.input;
    if (input.confirmResults.length === 0) {
      delete reply.waitingFor;
      expire(run, sorted.due, sorted.late);
      recordHeld(run, input, sorted.held);
      if (openCalls(run.msg).length === 0) noteAllDenied(run);
      return;
    }
  }
  // Answers are checked and decided before anything changes: a bad rule is an error, not half an answer.
  let permission = run.state.permission;
  let approvals: Map<string, Approval> | undefined;
  let refusedResults: Map<string, Refusal> | undefined;
  if (input.type === "USER_CONFIRM_RESULT") {
    approvals = await approvalsOf(run, input);
    permission = addRules(
      permission,
      input.confirmResults.flatMap((answer) => (answer.confirmed ? (answer.rules ?? []) : [])),
    );
  } else if (input.type === "EXTERNAL_EXECUTION_RESULT") {
    refusedResults = await refusedResultsOf(run, input);
  }
  delete reply.waitingFor;
  run.state.permission = permission;
  for (const [id, approval] of approvals ?? []) run.approvals.set(id, approval);
  // What each answered call asked about, before the answer's edits fold into it (for the records).
  const asked =
    input.type === "USER_CONFIRM_RESULT"
      ? new Map(input.confirmResults.map((a) => [a.toolCall.id, run.findCall(a.toolCall.id)!.input]))
      : undefined;
  if (sorted) expire(run, sorted.due, sorted.late);
  run.push({ ...input, replyId: run.msg.id } as AgentEvent);
  if (input.type === "USER_INTERRUPT") {
    end(run, interrupt(run, input.reason ?? "interrupted by the user"));
    return;
  }
  if (input.type === "USER_CONFIRM_RESULT") {
    recordAnswers(run, input, asked!, sorted?.governed);
    recordHeld(run, input, sorted?.held ?? []);
    const refused = input.confirmResults.filter((answer) => !answer.confirmed);
    for (const answer of refused) {
      const call = run.findCall(answer.toolCall.id)!;
      writeResult(
        run,
        call,
        "denied",
        `The user refused this call${answer.reason ? `: ${answer.reason}` : "."}`,
      );
    }
    if (refused.length > 0 && openCalls(run.msg).length === 0) noteAllDenied(run);
    return;
  }
  for (const result of input.toolResults) {
    run.emit("TOOL_RESULT_START", { toolCallId: result.id, toolCallName: result.name });
    const refusal = refusedResults?.get(result.id);
    if (refusal !== undefined) {
      run.emit("TOOL_RESULT_TEXT_DELTA", { toolCallId: result.id, delta: refusal.text });
      run.emit("TOOL_RESULT_END", { toolCallId: result.id, state: refusal.state });
      recordExternal(run, input, result, refusal.text);
      continue;
    }
    emitOutput(run, result.id, valueToParts(result.output));
    run.emit("TOOL_RESULT_END", {
      toolCallId: result.id,
      state: result.state === "running" ? "success" : result.state,
    });
    recordExternal(run, input, result, undefined);
  }
}

/**
 * Each confirmed answer as an approval for the gate, which decides the call again with it (see
 * `gate`). Throws, before anything changes, for an answer that wants to remember a rule the ask did
 * not offer. The ask answered is decided again for the call as it stands, before the answer's edits
 * and rules: it is what the person saw.
 */
async function approvalsOf(run: ReplyRun, input: UserConfirmResultEvent): Promise<Map<string, Approval>> {
  const approvals = new Map<string, Approval>();
  for (const answer of input.confirmResults) {
    if (!answer.confirmed) continue;
    const call = run.findCall(answer.toolCall.id)!;
    const edited = answer.toolCall.input !== call.input;
    const rules = answer.rules ?? [];
    const ask = edited || rules.length > 0 ? await currentDecision(run, call) : undefined;
    const problem = unofferedRules(rules, ask);
    if (problem !== undefined) {
      throw new ReplyStateError(
        `the answer to ${call.name} call "${call.id}" cannot be remembered: ${problem}`,
      );
    }
    approvals.set(call.id, edited ? { edited: true, answered: askKey(ask) } : { edited: false });
  }
  return approvals;
}

/**
 * External results whose call a deny now refuses (a rule added since it was submitted), or whose
 * permission check fails: the result is not taken, and the model reads why. By call id.
 */
async function refusedResultsOf(
  run: ReplyRun,
  input: ExternalExecutionResultEvent,
): Promise<Map<string, Refusal>> {
  const refused = new Map<string, Refusal>();
  for (const result of input.toolResults) {
    const call = run.findCall(result.id)!;
    const tool = run.findTool(call.name);
    if (!tool) {
      refused.set(result.id, {
        state: "error",
        text: `Error: the tool ${call.name} was removed since this call was submitted; the external result was not taken`,
      });
      continue;
    }
    const again = await decideAgain(run, call, tool);
    if (again === undefined) continue;
    if ("failure" in again) {
      refused.set(result.id, {
        state: "error",
        text: `Error: the permission check failed (${again.failure}); the external result was not taken`,
      });
    } else if (again.verdict.behavior === "deny") {
      refused.set(result.id, {
        state: "denied",
        text: `Permission denied: ${again.verdict.decision.reason}; the external result was not taken`,
      });
    }
  }
  return refused;
}

/**
 * A call admitted before its reply paused, decided again as it stands now (a deny that came since
 * wins): the verdict with the parsed input, why the check failed, or undefined when its arguments no
 * longer parse.
 */
async function decideAgain(
  run: ReplyRun,
  call: ToolCallBlock,
  tool: Tool,
): Promise<{ verdict: CallVerdict; input: unknown } | { failure: string } | undefined> {
  const parsed = quietlyParsed(call, tool);
  if (!parsed) return undefined;
  try {
    return { verdict: await decide(run, call, tool, parsed.value, { edited: false }), input: parsed.value };
  } catch (error) {
    return { failure: toErrorInfo(error).message };
  }
}
