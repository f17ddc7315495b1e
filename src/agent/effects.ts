import { type AgentEvent, createEvent, type UserConfirmResult } from "../event/index.js";
import { type Msg, newId, type ToolCallBlock, type ToolResultBlock } from "../message/index.js";
import type { AgentState, ReplyContext } from "../state/index.js";
import type { Tool } from "../tool/index.js";
import type { ReplyRun } from "./reply-run.js";

/** Who runs an idempotent call again after a crash: the runtime itself, not a person. */
export const RETRY_ANSWERER = { name: "runtime", channel: "engine" } as const;

/** The note that ends the result of a call cut off while it ran, whose outcome is unknown. */
export const OUTCOME_UNKNOWN_NOTE =
  "[outcome unknown: the process running this call stopped while it ran; it may or may not have taken effect]";

/**
 * The effect id of a call, as its tool gets it (`ctx.idempotencyKey`): the one stored for it (a
 * retry carries the key of the call it runs again), else a new one.
 */
export function effectKeyOf(run: ReplyRun, call: Pick<ToolCallBlock, "id">): string {
  return run.state.replyContext?.effects?.[call.id]?.key ?? newId("effect");
}

/** The effect saves of each run, one after the other (calls of a parallel batch each save). */
const saving = new WeakMap<ReplyRun, Promise<void>>();

/**
 * Before a tool that is not read-only starts: its effect (the key it gets, when it started) is
 * stored in the reply context and the state saved with it (checkpoint `tool_start`; its result,
 * already open, is in it). A crash while the tool runs then leaves a state that says the call started
 * and has no finished result: its outcome is unknown (see `unknownOutcomeEnding`).
 */
export function storeEffect(run: ReplyRun, call: ToolCallBlock, tool: Tool, key: string): Promise<void> {
  const reply = run.state.replyContext;
  if (tool.readOnly || !reply) return Promise.resolve();
  const effects = reply.effects ?? {};
  effects[call.id] = { ...effects[call.id], key, startedAt: new Date().toISOString() };
  if (tool.idempotent) effects[call.id]!.idempotent = true;
  reply.effects = effects;
  const saved = (saving.get(run) ?? Promise.resolve()).then(() => run.save("tool_start"));
  saving.set(
    run,
    saved.catch(() => {}),
  );
  return saved;
}

/**
 * For a reply cut off mid-run: its calls that had started an effect and have no finished result.
 * Their outcome is unknown (the tool may have done its work); every other cut-off call never started.
 */
export function unknownOutcomes(msg: Pick<Msg, "content">, reply: ReplyContext | undefined): ToolCallBlock[] {
  const effects = reply?.effects;
  if (!effects) return [];
  const results = new Map<string, ToolResultBlock>();
  for (const block of msg.content) if (block.type === "tool_result") results.set(block.id, block);
  return msg.content.filter((b): b is ToolCallBlock => {
    if (b.type !== "tool_call" || b.executedBy === "provider" || effects[b.id] === undefined) return false;
    const result = results.get(b.id);
    return result === undefined || result.state === "running";
  });
}

/**
 * The events that turn a reply cut off while effects ran into a pause instead of an end: each such
 * call's result ends `interrupted` with OUTCOME_UNKNOWN_NOTE (its partial output kept); a new call
 * of the same tool and arguments stands for running the effect again (the same effect id: the
 * retry's entry in `reply.effects`, which this adds); an `outcome_unknown` DECISION says which way
 * it goes; then one REQUIRE_USER_CONFIRM for the retries, whose reason says the outcome is unknown.
 * An idempotent tool's retry (`resolution: "retry"`) is approved by the runtime (`retryAnswer`);
 * any other waits for a person. Changes `reply` (effects, waitingFor); the caller folds the events.
 */
export function unknownOutcomeEnding(
  msg: Pick<Msg, "id" | "content">,
  reply: ReplyContext,
  calls: ToolCallBlock[],
  mode: string,
): AgentEvent[] {
  const replyId = msg.id;
  const results = new Set(msg.content.flatMap((b) => (b.type === "tool_result" ? [b.id] : [])));
  const events: AgentEvent[] = [];
  const asks: ToolCallBlock[] = [];
  const effects = reply.effects!;
  for (const call of calls) {
    const toolCallId = call.id;
    const effect = effects[toolCallId]!;
    if (!results.has(toolCallId))
      events.push(createEvent("TOOL_RESULT_START", { replyId, toolCallId, toolCallName: call.name }));
    events.push(
      createEvent("TOOL_RESULT_TEXT_DELTA", { replyId, toolCallId, delta: OUTCOME_UNKNOWN_NOTE }),
      createEvent("TOOL_RESULT_END", { replyId, toolCallId, state: "interrupted" }),
    );
    const retry = newId("call");
    effects[retry] = { key: effect.key, startedAt: effect.startedAt, retryOf: toolCallId };
    if (effect.idempotent) effects[retry]!.idempotent = true;
    const resolution = effect.idempotent ? "retry" : "ask";
    events.push(
      createEvent("TOOL_CALL_START", { replyId, toolCallId: retry, toolCallName: call.name }),
      createEvent("TOOL_CALL_DELTA", { replyId, toolCallId: retry, delta: call.input }),
      createEvent("TOOL_CALL_END", { replyId, toolCallId: retry }),
      createEvent("DECISION", {
        replyId,
        toolCallId: call.id,
        toolName: call.name,
        outcome: "outcome_unknown",
        input: call.input,
        mode,
        actor: "engine",
        channel: "engine",
        resolution,
        retryCallId: retry,
        reason: reasonFor(call, effect.idempotent === true),
      }),
    );
    asks.push({ type: "tool_call", id: retry, name: call.name, input: call.input, state: "asking" });
  }
  events.push(
    createEvent("REQUIRE_USER_CONFIRM", {
      replyId,
      toolCalls: asks.map((ask, i) => ({
        ...ask,
        reason: reasonFor(calls[i]!, effects[ask.id]!.idempotent === true),
      })),
    }),
  );
  reply.waitingFor = "user_confirm";
  return events;
}

function reasonFor(call: ToolCallBlock, idempotent: boolean): string {
  return idempotent
    ? `The outcome of ${call.name} call "${call.id}" is unknown (the process running it stopped while it ran); ${call.name} is idempotent, so it runs again with the same idempotency key.`
    : `The outcome of ${call.name} call "${call.id}" is unknown (the process running it stopped while it ran): it may or may not have taken effect. Approve to run it again with the same idempotency key, or refuse to leave it as it is.`;
}

/**
 * The runtime's answer to a reply paused on idempotent retries only (see `unknownOutcomeEnding`):
 * approves each of them, by RETRY_ANSWERER. Undefined when the reply waits for anything else: a
 * person decides those.
 */
export function retryAnswer(state: AgentState): UserConfirmResult | undefined {
  const reply = state.replyContext;
  if (reply?.waitingFor !== "user_confirm" || !reply.effects) return undefined;
  const msg = state.context.findLast((m) => m.id === reply.replyId);
  if (!msg) return undefined;
  const asking = msg.content.filter(
    (b): b is ToolCallBlock => b.type === "tool_call" && b.state === "asking",
  );
  if (asking.length === 0 || asking.some((call) => reply.effects?.[call.id]?.idempotent !== true))
    return undefined;
  if (asking.some((call) => reply.effects?.[call.id]?.retryOf === undefined)) return undefined;
  return createEvent("USER_CONFIRM_RESULT", {
    replyId: reply.replyId,
    confirmResults: asking.map((call) => ({
      confirmed: true,
      toolCall: { type: "tool_call", id: call.id, name: call.name, input: call.input, state: "asking" },
    })),
    answeredBy: { ...RETRY_ANSWERER },
  });
}
