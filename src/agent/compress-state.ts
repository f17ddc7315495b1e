import { toErrorInfo } from "../message/index.js";
import type { ChatModel } from "../model/core.js";
import type { AgentState } from "../state/index.js";
import { type ContextOptions, planCompression, summarise } from "./compression.js";
import type { AgentEventInit } from "./middleware.js";
import { inheritMarks } from "./taint-marks.js";
import type { TriggerCount } from "./token-count.js";

export interface CompressionResult {
  compressed: boolean;
  removedMessages: number;
  tokensBefore: number;
  tokensAfter: number;
  /** Set when summarising failed and the oldest messages were dropped instead. */
  error?: string;
  /** The count that passed the trigger, and whether the provider or the estimate made it (not on demand). */
  trigger?: TriggerCount;
}

/**
 * Replaces the older part of `state.context` with a summary (kept in `state.summary`, sent right after
 * the system prompt). The newest messages that fit `reserveRatio` of the window stay verbatim, and so
 * does everything from the last user message on. The summary call is reported as MODEL_CALL_START/END
 * (its usage counts); if it fails, the older messages are dropped with a marker and a CUSTOM
 * `context_truncated` event says so, and the reply goes on.
 */
export async function compressState(
  state: AgentState,
  model: ChatModel,
  summaryModel: ChatModel,
  options: ContextOptions,
  io: {
    signal?: AbortSignal | undefined;
    emit?: (event: AgentEventInit) => void;
    keepTokens?: number;
    trigger?: TriggerCount;
  } = {},
): Promise<CompressionResult> {
  const count = (msgs: typeof state.context) => model.countTokens(msgs);
  const tokensBefore = count(state.context);
  const keepTokens = io.keepTokens ?? model.contextSize * (options.reserveRatio ?? 0.1);
  const lastUser = state.context.findLastIndex((msg) => msg.role === "user");
  const plan = planCompression(state.context, keepTokens, count);
  const split = Math.min(plan.older.length, lastUser < 0 ? plan.older.length : lastUser);
  if (split === 0) return { compressed: false, removedMessages: 0, tokensBefore, tokensAfter: tokensBefore };
  const older = state.context.slice(0, split);
  const purpose = { purpose: "context_compression" };
  io.emit?.({ type: "MODEL_CALL_START", modelName: summaryModel.name, metadata: purpose });
  try {
    const { summary, usage } = await summarise(summaryModel, older, state.summary, io.signal);
    io.emit?.({
      type: "MODEL_CALL_END",
      modelName: summaryModel.name,
      inputTokens: usage.inputTokens,
      outputTokens: usage.outputTokens,
      metadata: purpose,
    });
    state.context.splice(0, split);
    state.summary = summary;
    // The summary holds what the older messages said, untrusted content too.
    if (state.taint) inheritMarks(state, older);
    const result: CompressionResult = {
      compressed: true,
      removedMessages: split,
      tokensBefore,
      tokensAfter: count(state.context),
    };
    if (io.trigger) result.trigger = io.trigger;
    io.emit?.({ type: "CUSTOM", name: "context_compressed", value: result });
    return result;
  } catch (error) {
    const message = toErrorInfo(error).message;
    io.emit?.({
      type: "MODEL_CALL_END",
      modelName: summaryModel.name,
      inputTokens: 0,
      outputTokens: 0,
      error: toErrorInfo(error, "upstream"),
      metadata: purpose,
    });
    state.context.splice(0, split);
    const marker = `[${split} earlier messages were dropped because summarising them failed: ${message}]`;
    state.summary = state.summary ? `${state.summary}\n${marker}` : marker;
    const result: CompressionResult = {
      compressed: true,
      removedMessages: split,
      tokensBefore,
      tokensAfter: count(state.context),
      error: message,
    };
    if (io.trigger) result.trigger = io.trigger;
    io.emit?.({ type: "CUSTOM", name: "context_truncated", value: result });
    return result;
  }
}
