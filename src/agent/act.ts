import type { RequireUserConfirmEvent } from "../event/index.js";
import type { ToolCallBlock } from "../message/index.js";
import { formatRule } from "../permission/index.js";
import { recordVerdict } from "./decision-records.js";
import { type Admitted, type Ask, gate, previewOf } from "./gate.js";
import { lastStepCalls, openCalls, resultsOf, splitBatches } from "./open-calls.js";
import { suspendedWaitingFor } from "./pause.js";
import { deadlineOf } from "./pause-deadlines.js";
import { storeFingerprints } from "./pause-fingerprints.js";
import type { ReplyRun } from "./reply-run.js";
import { runTool } from "./run-tool.js";
import { replyTaint } from "./taint-marks.js";

/**
 * Act: the open calls, batch by batch (a run of concurrency-safe calls runs in parallel, any other
 * call alone): each call through the gate, then run (TOOL_RESULT_*), submitted for external execution
 * (REQUIRE_EXTERNAL_EXECUTION) or asked about (REQUIRE_USER_CONFIRM). Returns "paused" when the
 * reply waits for an answer (the batch's calls that could run have run), else "acted"; ALL_TOOLS_DENIED
 * when every call of the last step was denied.
 */
export async function act(run: ReplyRun, open: ToolCallBlock[]): Promise<"acted" | "paused"> {
  const batches = splitBatches(open, (call) => run.findTool(call.name)?.concurrencySafe === true);
  for (const batch of batches) {
    const toRun: Admitted[] = [];
    const asks: Ask[] = [];
    const external: Admitted[] = [];
    for (const call of batch.calls) {
      // A call still asking is decided again: a rule accepted for a sibling may allow it now. An
      // approved call is decided again too, for the input it has now (see `gate`).
      if (call.state === "submitted") continue;
      // A call whose tool or agent changed while it waited is asked again, with what changed; the
      // approval then goes through the gate (a deny still wins).
      const reask = run.reasks.get(call.id);
      if (reask !== undefined) {
        run.reasks.delete(call.id);
        asks.push({ call, decision: { behavior: "ask", reason: reask } });
        continue;
      }
      const admitted = await gate(run, call, asks);
      if (!admitted) continue;
      if (admitted.tool.external) external.push(admitted);
      else toRun.push(admitted);
    }
    storeFingerprints(
      run,
      external.map(({ call }) => call),
    );
    if (external.length > 0)
      run.emit("REQUIRE_EXTERNAL_EXECUTION", {
        toolCalls: external.map(({ call }) => snapshotCall(call, "submitted")),
      });
    await run.send();
    if (toRun.length > 0) await runTools(run, toRun, batch.parallel);
    if (run.options.signal?.aborted || run.stopReason !== undefined) return "acted";

    const waiting = batch.calls.filter((call) => call.state === "asking" || call.state === "submitted");
    for (const call of waiting) {
      if (call.state === "asking" && !asks.some((a) => a.call.id === call.id))
        asks.push({ call, decision: { behavior: "ask", reason: "" } });
    }
    const nested = suspendedWaitingFor(run.state);
    if (asks.length > 0 || waiting.length > 0 || nested !== undefined) {
      if (asks.length > 0) askToConfirm(run, asks);
      run.state.replyContext!.waitingFor =
        openCalls(run.msg).some((c) => c.state === "asking") || nested === "user_confirm"
          ? "user_confirm"
          : "external_execution";
      await run.send();
      return "paused";
    }
  }
  noteAllDenied(run);
  await run.send();
  return "acted";
}

/** Runs the admitted calls of one batch: in order, or all at once; events are handed over as they come. */
async function runTools(run: ReplyRun, calls: Admitted[], parallel: boolean): Promise<void> {
  if (parallel) return run.sendUntil(Promise.all(calls.map((admitted) => runTool(run, admitted))));
  for (const admitted of calls) {
    if (run.options.signal?.aborted || run.stopReason !== undefined) return;
    await run.sendUntil(runTool(run, admitted));
  }
}

/**
 * REQUIRE_USER_CONFIRM for the asks (identical asks once), with each call's reason, rules and
 * preview, each ask's DECISION record right before it.
 */
function askToConfirm(run: ReplyRun, asks: Ask[]): void {
  const asked = askedOnce(asks);
  storeFingerprints(
    run,
    asked.map(({ call }) => call),
  );
  const deadlines = asked.map(({ call, decision }) => {
    const deadline = deadlineOf(run, call, decision.rule ? formatRule(decision.rule) : undefined);
    recordVerdict(run, call, "ask", decision, deadline);
    return deadline;
  });
  const taint = replyTaint(run.state);
  run.emit("REQUIRE_USER_CONFIRM", {
    toolCalls: asked.map(({ call, decision }, index) => {
      const entry: RequireUserConfirmEvent["toolCalls"][number] = snapshotCall(call, "asking");
      const deadline = deadlines[index];
      if (deadline) entry.expiresAt = deadline.expiresAt;
      if (decision.reason) entry.reason = decision.reason;
      if (decision.suggestedRules?.length) entry.suggestedRules = decision.suggestedRules;
      if (taint?.length) entry.taint = [...taint];
      const preview = previewOf(run, call);
      if (preview) entry.preview = preview;
      return entry;
    }),
  });
}

/** Emits ALL_TOOLS_DENIED when every call of the last reasoning step was denied. */
export function noteAllDenied(run: ReplyRun): void {
  const calls = lastStepCalls(run.msg);
  if (calls.length === 0) return;
  const results = resultsOf(run.msg, new Set(calls.map((call) => call.id)));
  if (results.length === calls.length && results.every((result) => result.state === "denied")) {
    run.emit("ALL_TOOLS_DENIED", { deniedToolCalls: calls.map((call) => snapshotCall(call)) });
  }
}

/** A copy of a call for an event payload, in the state the event puts it in (default: as it stands). */
function snapshotCall(call: ToolCallBlock, state: ToolCallBlock["state"] = call.state): ToolCallBlock {
  return { type: "tool_call", id: call.id, name: call.name, input: call.input, state };
}

/**
 * Identical asks (same tool, same suggested rules) are asked once: the first stands for the rest,
 * which stay pending and are decided again after the answer (an "always allow" rule clears them).
 */
function askedOnce(asks: Ask[]): Ask[] {
  const seen = new Set<string>();
  return asks.filter(({ call, decision }) => {
    if (!decision.suggestedRules?.length) return true;
    const key = `${call.name}\u0000${decision.suggestedRules.join("\u0000")}`;
    if (seen.has(key) && call.state !== "asking") return false;
    seen.add(key);
    return true;
  });
}
