import type { AgentEvent, InputEvent, RequireUserConfirmEvent } from "../event/index.js";
import { type ToolCallBlock, toErrorInfo } from "../message/index.js";
import {
  type Approval,
  type CallVerdict,
  type DecidedCall,
  decideCall,
  type PermissionContext,
  type PermissionDecision,
} from "../permission/index.js";
import type { WaitingFor } from "../state/index.js";
import { type Tool, type ToolContext, ToolError, ToolInputError } from "../tool/index.js";
import { abortReason, untilAborted } from "./abort.js";
import { ReplyStateError } from "./errors.js";
import type { ToolCallOutcome, ToolCallRequest } from "./middleware.js";
import { lastStepCalls, openCalls, resultsOf, splitBatches } from "./open-calls.js";
import { ReplyCore } from "./reply-core.js";
import { pausedReply } from "./resume.js";
import { STRUCTURED_OUTPUT_TOOL } from "./structured-output.js";
import { chunkToPart, isAsyncIterable, valueToParts } from "./tool-output.js";

type Ask = { call: ToolCallBlock; decision: PermissionDecision };
/**
 * A call the gate let through: it runs (or is submitted) only under its DecidedCall, with the
 * arguments the gate parsed (`input`) from the call's text as it was then (`raw`).
 */
type Admitted = { call: ToolCallBlock; tool: Tool; decided: DecidedCall; input: unknown; raw: string };

/** Acting: gating tool calls (validation, permission) and running them, batch by batch. */
export abstract class ActingRun extends ReplyCore {
  /**
   * The calls a person approved in the answer this run resumed with (set by `resume`): the gate
   * decides each again with that approval, for the input it now has (edited or not).
   */
  protected readonly approvals = new Map<string, Approval>();

  protected lookup(name: string): Tool | undefined {
    if (this.structuredTool && name === STRUCTURED_OUTPUT_TOOL) return this.structuredTool;
    return this.config.toolkit.isActive(name) ? this.config.toolkit.get(name) : undefined;
  }

  /** Gates and runs open calls batch by batch; returns true when the reply paused. */
  protected async *act(open: ToolCallBlock[]): AsyncGenerator<AgentEvent, boolean> {
    const batches = splitBatches(open, (call) => this.lookup(call.name)?.concurrencySafe === true);
    for (const batch of batches) {
      const run: Admitted[] = [];
      const asks: Ask[] = [];
      const external: Admitted[] = [];
      for (const call of batch.calls) {
        // A call still asking is decided again: a rule accepted for a sibling may allow it now. An
        // approved call is decided again too, for the input it has now (see `gate`).
        if (call.state === "submitted") continue;
        const admitted = await this.gate(call, asks);
        if (!admitted) continue;
        if (admitted.tool.external) external.push(admitted);
        else run.push(admitted);
      }
      if (external.length > 0)
        this.emit("REQUIRE_EXTERNAL_EXECUTION", {
          toolCalls: external.map(({ call }) => snapshotCall(call, "submitted")),
        });
      yield* this.drain();
      if (run.length > 0) yield* this.runTools(run, batch.parallel);
      if (this.options.signal?.aborted || this.stopReason !== undefined) return false;

      const waiting = batch.calls.filter((call) => call.state === "asking" || call.state === "submitted");
      const asking = waiting.filter(
        (call) => call.state === "asking" || asks.some((a) => a.call.id === call.id),
      );
      for (const call of asking) {
        if (!asks.some((a) => a.call.id === call.id))
          asks.push({ call, decision: { behavior: "ask", reason: "" } });
      }
      const nested = this.suspendedWaitingFor();
      if (asks.length > 0 || waiting.length > 0 || nested !== undefined) {
        if (asks.length > 0) {
          this.emit("REQUIRE_USER_CONFIRM", {
            toolCalls: askedOnce(asks).map(({ call, decision }) => {
              const entry: RequireUserConfirmEvent["toolCalls"][number] = snapshotCall(call, "asking");
              if (decision.reason) entry.reason = decision.reason;
              if (decision.suggestedRules?.length) entry.suggestedRules = decision.suggestedRules;
              const preview = this.previewOf(call);
              if (preview) entry.preview = preview;
              return entry;
            }),
          });
        }
        const reply = this.state.replyContext!;
        reply.waitingFor =
          openCalls(this.msg).some((c) => c.state === "asking") || nested === "user_confirm"
            ? "user_confirm"
            : "external_execution";
        yield* this.drain();
        return true;
      }
    }
    this.noteAllDenied();
    yield* this.drain();
    return false;
  }

  /** Emits ALL_TOOLS_DENIED when every call of the last reasoning step was denied. */
  protected noteAllDenied(): void {
    const calls = lastStepCalls(this.msg);
    if (calls.length === 0) return;
    const results = resultsOf(this.msg, new Set(calls.map((call) => call.id)));
    if (results.length === calls.length && results.every((result) => result.state === "denied")) {
      this.emit("ALL_TOOLS_DENIED", { deniedToolCalls: calls.map((call) => snapshotCall(call)) });
    }
  }

  /**
   * Validates a call and passes it through the one gate (`decideCall`) for the input it has now.
   * Returns the call with its DecidedCall when it may run (or be submitted); writes an error or
   * denied result, or records an ask, otherwise. An approved call ("allowed" after an answer) is
   * decided with the person's approval: unchanged it runs unless denied; edited it runs when allowed
   * or when it needs the very ask the person answered, is denied like any call, and asks again when
   * it needs another ask. An "allowed" call without an approval of this run is decided afresh.
   */
  protected async gate(call: ToolCallBlock, asks: Ask[]): Promise<Admitted | undefined> {
    const approval = call.state === "allowed" ? this.approvals.get(call.id) : undefined;
    this.approvals.delete(call.id);
    const tool = this.lookup(call.name);
    if (!tool) {
      const names = [
        ...this.config.toolkit.schemas().map((s) => s.name),
        ...(this.structuredTool ? [STRUCTURED_OUTPUT_TOOL] : []),
      ];
      this.writeResult(
        call,
        "error",
        `Error: there is no tool named "${call.name}". Available tools: ${names.join(", ") || "none"}.`,
      );
      return undefined;
    }
    const parsed = this.parseArguments(call, tool);
    if (parsed === PARSE_FAILED) return undefined;
    let verdict: CallVerdict;
    try {
      verdict = await this.decide(call, tool, parsed, approval);
    } catch (error) {
      this.writeResult(call, "error", `Error: the permission check failed: ${toErrorInfo(error).message}`);
      return undefined;
    }
    if (verdict.behavior === "deny") {
      const what = approval?.edited ? " (the call as edited in the answer)" : "";
      this.writeResult(call, "denied", `Permission denied${what}: ${verdict.decision.reason}`);
      return undefined;
    }
    if (verdict.behavior === "ask") {
      asks.push({ call, decision: verdict.decision });
      return undefined;
    }
    return { call, tool, decided: verdict.decided, input: parsed, raw: call.input };
  }

  /**
   * The one gate with this agent's decider (the engine, a custom `decidePermission`, and the
   * middleware `onPermission` chain around it). The structured-output tool only records the answer.
   */
  protected decide(
    call: ToolCallBlock,
    tool: Tool,
    input: unknown,
    approval?: Approval,
  ): Promise<CallVerdict> {
    const decide =
      tool === this.structuredTool
        ? async (): Promise<PermissionDecision> => ({ behavior: "allow", reason: "it records the answer" })
        : this.noMiddleware
          ? (value: unknown, context: PermissionContext) => this.config.decide(tool, value, context)
          : (value: unknown, context: PermissionContext) =>
              this.mw.decide({ tool, input: value, permission: context });
    return decideCall({
      call,
      subject: tool,
      input,
      context: this.state.permission,
      decide,
      ...(approval ? { approval } : {}),
    });
  }

  /** The parsed arguments of `call`, or undefined when they do not parse; writes nothing. */
  protected quietlyParsed(call: ToolCallBlock, tool: Tool): { value: unknown } | undefined {
    try {
      return { value: tool.parse(call.input.trim() === "" ? {} : JSON.parse(call.input)) };
    } catch {
      return undefined;
    }
  }

  /**
   * The file change an asking call would make, from its tool's `preview` (asks only, never the run
   * path); undefined when the tool declares none, the arguments do not parse, or the preview throws
   * or is malformed.
   */
  protected previewOf(call: ToolCallBlock): RequireUserConfirmEvent["toolCalls"][number]["preview"] {
    const tool = this.lookup(call.name);
    if (!tool?.preview) return undefined;
    const parsed = this.quietlyParsed(call, tool);
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
  protected async currentDecision(call: ToolCallBlock): Promise<PermissionDecision | undefined> {
    const tool = this.lookup(call.name);
    if (!tool) return undefined;
    const parsed = this.quietlyParsed(call, tool);
    if (!parsed) return undefined;
    try {
      return (await this.decide(call, tool, parsed.value)).decision;
    } catch {
      return undefined;
    }
  }

  protected parseArguments(call: ToolCallBlock, tool: Tool): unknown {
    let args: unknown;
    try {
      args = call.input.trim() === "" ? {} : JSON.parse(call.input);
    } catch (error) {
      this.writeResult(
        call,
        "error",
        `Error: the arguments are not valid JSON (${(error as Error).message}). Send a JSON object.`,
      );
      return PARSE_FAILED;
    }
    try {
      return tool.parse(args);
    } catch (error) {
      const detail = error instanceof ToolInputError ? error.message : toErrorInfo(error).message;
      this.writeResult(call, "error", `Error: invalid arguments for ${tool.name}: ${detail}`);
      return PARSE_FAILED;
    }
  }

  protected async *runTools(calls: Admitted[], parallel: boolean): AsyncGenerator<AgentEvent> {
    if (!parallel) {
      for (const admitted of calls) {
        if (this.options.signal?.aborted || this.stopReason !== undefined) return;
        yield* this.waitFor(this.runTool(admitted));
      }
      return;
    }
    yield* this.waitFor(Promise.all(calls.map((admitted) => this.runTool(admitted))));
  }

  /**
   * Runs one admitted call under its decision (it refuses arguments other than the decided ones);
   * with `resume`, continues a call whose nested run paused (its result is already open).
   */
  protected async runTool(admitted: Admitted, resume?: InputEvent): Promise<void> {
    const { call, tool, decided, input: parsed } = admitted;
    if (call.input !== admitted.raw) {
      throw new ReplyStateError(
        `the arguments of ${call.name} call "${call.id}" changed after its permission decision`,
      );
    }
    const signal = this.options.signal ?? new AbortController().signal;
    if (!resume) this.emit("TOOL_RESULT_START", { toolCallId: call.id, toolCallName: call.name });
    let suspended: { replyIds: string[]; waitingFor: WaitingFor } | undefined;
    const ctx: ToolContext = {
      signal,
      sessionId: this.state.sessionId,
      replyId: this.msg.id,
      toolCallId: call.id,
      state: this.state.toolContext,
      permission: this.state.permission,
      requestStop: (reason?: string) => {
        this.stopReason = reason ?? `requested by ${tool.name}`;
      },
      source: this.options.source ?? this.config.name,
      emit: (event) => this.push(event),
      suspend: (pause) => {
        suspended = pause;
      },
    };
    if (resume) ctx.resume = resume;
    try {
      const value = this.noMiddleware
        ? decided.run(call, parsed, (input) => tool.call(input, ctx))
        : await untilAborted(
            decided.run(call, parsed, (input) => this.mw.callTool({ call, tool, input, ctx, decided })),
            signal,
          );
      if (isAsyncIterable(value)) {
        const chunks = value[Symbol.asyncIterator]();
        try {
          while (!signal.aborted) {
            const next = await untilAborted(chunks.next(), signal);
            if (next.done) break;
            this.emitOutput(call.id, [chunkToPart(next.value)]);
          }
        } finally {
          if (signal.aborted) void chunks.return?.()?.catch(() => {});
        }
      } else {
        this.emitOutput(call.id, valueToParts(await untilAborted(value, signal)));
      }
      if (signal.aborted) {
        this.emitOutput(call.id, [{ kind: "text", text: `\n[interrupted: ${abortReason(signal)}]` }]);
        this.emit("TOOL_RESULT_END", { toolCallId: call.id, state: "interrupted" });
        return;
      }
      if (suspended) {
        this.suspend(call.id, suspended);
        return;
      }
      if (tool === this.structuredTool) {
        this.structuredValue = parsed;
        this.structuredDone = true;
      }
      const state = resume?.type === "USER_INTERRUPT" ? "interrupted" : "success";
      this.emit("TOOL_RESULT_END", { toolCallId: call.id, state });
    } catch (error) {
      const state = signal.aborted ? "interrupted" : "error";
      if (!signal.aborted && ToolError.isInstance(error) && error.output !== undefined) {
        this.emitOutput(call.id, valueToParts(error.output));
      } else {
        const message = signal.aborted
          ? `[interrupted: ${abortReason(signal)}]`
          : `Error: ${toErrorInfo(error).message}`;
        this.emitOutput(call.id, [{ kind: "text", text: message }]);
      }
      this.emit("TOOL_RESULT_END", { toolCallId: call.id, state });
    }
  }

  /**
   * The end of the middleware tool chain. Arguments a middleware changed are decided again (a
   * changed call that is denied or would ask is an error, and the tool does not run); the tool runs
   * only under a decision for exactly the arguments it gets, as the call it was decided for.
   */
  protected async runDecided(request: ToolCallRequest): Promise<ToolCallOutcome> {
    const { call, tool, input, ctx } = request;
    let decided = request.decided;
    if (!decided.matches(input) && tool.name === decided.toolName) {
      const verdict = await this.decide(call, tool, input);
      if (verdict.behavior !== "allow") {
        throw new ToolError(
          `a middleware changed the arguments of this ${tool.name} call, and the changed call ${verdict.behavior === "deny" ? "is denied" : "would need a confirmation"}: ${verdict.decision.reason}`,
        );
      }
      decided = verdict.decided;
    }
    return decided.run({ id: call.id, name: tool.name }, input, (value) => tool.call(value, ctx));
  }

  /** Records that `toolCallId` waits on a paused nested run; answers to `replyIds` continue it. */
  private suspend(toolCallId: string, pause: { replyIds: string[]; waitingFor: WaitingFor }): void {
    const reply = this.state.replyContext!;
    const suspended = reply.suspended ?? {};
    for (const id of pause.replyIds) suspended[id] = { toolCallId, waitingFor: pause.waitingFor };
    reply.suspended = suspended;
  }

  /** What the calls waiting on nested runs wait for (a confirmation first), or undefined when none do. */
  protected suspendedWaitingFor(): WaitingFor | undefined {
    const entries = Object.values(this.state.replyContext?.suspended ?? {});
    if (entries.length === 0) return undefined;
    return entries.some((entry) => entry.waitingFor === "user_confirm")
      ? "user_confirm"
      : "external_execution";
  }

  /**
   * Pauses the reply again when calls still wait on nested runs and nothing else can run.
   * Returns true when it paused.
   */
  protected pauseForNested(): boolean {
    const waitingFor = this.suspendedWaitingFor();
    if (waitingFor === undefined) return false;
    this.state.replyContext!.waitingFor = waitingFor;
    return true;
  }

  /**
   * Takes an answer to a paused reply. One whose replyId belongs to a nested run continues the call
   * that waits on it; an interrupt also interrupts every nested run; anything else is this reply's own.
   */
  protected async *resumeInput(input: InputEvent): AsyncGenerator<AgentEvent> {
    const reply = this.state.replyContext;
    let target = input.replyId ? reply?.suspended?.[input.replyId] : undefined;
    const toThisReply = !input.replyId || input.replyId === reply?.replyId;
    if (reply?.suspended && !target && toThisReply && input.type !== "USER_INTERRUPT") {
      // An answer addressed to this reply (or to none) for calls it does not have: when one call waits
      // on a nested run, that run is what the client answers (it only knew the top-level reply).
      const entries = Object.entries(reply.suspended);
      const last = this.state.context.at(-1);
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
      this.msg = pausedReply(this.state, { ...input, replyId: reply.replyId });
      delete reply.waitingFor;
      yield* this.continueSuspended(target.toolCallId, input);
      return;
    }
    if (
      reply?.suspended &&
      input.type === "USER_INTERRUPT" &&
      (!input.replyId || input.replyId === reply.replyId)
    ) {
      this.msg = pausedReply(this.state, input);
      const byCall = new Map<string, string>();
      for (const [replyId, entry] of Object.entries(reply.suspended)) {
        if (!byCall.has(entry.toolCallId)) byCall.set(entry.toolCallId, replyId);
      }
      for (const [toolCallId, replyId] of byCall) {
        const nested: InputEvent = { ...input, replyId };
        yield* this.continueSuspended(toolCallId, nested);
      }
    }
    await this.resume(input);
  }

  /** Runs a suspended call again with the answer for its nested run. */
  private async *continueSuspended(toolCallId: string, input: InputEvent): AsyncGenerator<AgentEvent> {
    const reply = this.state.replyContext!;
    for (const [id, entry] of Object.entries(reply.suspended ?? {})) {
      if (entry.toolCallId === toolCallId) delete reply.suspended![id];
    }
    if (Object.keys(reply.suspended ?? {}).length === 0) delete reply.suspended;
    const call = this.findCall(toolCallId);
    const tool = call ? this.lookup(call.name) : undefined;
    if (!call || !tool) {
      throw new ReplyStateError(`tool call "${toolCallId}" waits on a nested run, but its tool is gone`);
    }
    // It was admitted with this input before it paused; decided again, a deny that came since wins.
    const parsed = this.quietlyParsed(call, tool);
    let verdict: CallVerdict | undefined;
    let failure: string | undefined;
    try {
      if (parsed) verdict = await this.decide(call, tool, parsed.value, { edited: false });
    } catch (error) {
      failure = `the permission check failed: ${toErrorInfo(error).message}`;
    }
    if (verdict?.behavior !== "allow") {
      // Its result is already open: end it (the nested run stays paused and is never continued).
      const reason = verdict
        ? `Permission denied: ${verdict.decision.reason}`
        : `Error: ${failure ?? "its arguments no longer parse"}`;
      this.emit("TOOL_RESULT_TEXT_DELTA", { toolCallId, delta: reason });
      this.emit("TOOL_RESULT_END", { toolCallId, state: verdict ? "denied" : "error" });
      yield* this.drain();
      return;
    }
    const admitted = { call, tool, decided: verdict.decided, input: parsed!.value, raw: call.input };
    yield* this.waitFor(this.runTool(admitted, input));
  }

  /** Takes this reply's own answer (ReplyRun). */
  protected abstract resume(input: InputEvent): Promise<void>;
}

const PARSE_FAILED = Symbol("parse failed");

export function toolSchema(tool: Tool) {
  return { name: tool.name, description: tool.description, parameters: tool.inputSchema };
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
