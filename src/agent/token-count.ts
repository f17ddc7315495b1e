import type { Msg } from "../message/index.js";
import type { ChatModel, ToolSchema } from "../model/core.js";
import type { AgentState } from "../state/index.js";

/**
 * What decides the compression trigger: `"estimate"` the local estimator only (no network),
 * `"provider"` the provider's count (`countInputTokens`: Anthropic count_tokens, Gemini countTokens)
 * when the estimate comes near the trigger. Default: `"provider"` when the model has the endpoint.
 */
export type TokenCounter = "estimate" | "provider";

/** How the input was counted against the trigger (on the `context_compressed` event as `trigger`). */
export interface TriggerCount {
  /** The count that decided. */
  tokens: number;
  /** `provider` when the provider counted; `estimate` when it was not asked or its count failed. */
  source: "provider" | "estimate";
  /** The local estimate of the same input. */
  estimate: number;
  /** Compression starts above this many tokens (context size × trigger ratio). */
  threshold: number;
  over: boolean;
}

/**
 * Margins (share of the threshold) below which the provider is not asked. Measured against a real
 * tokenizer (o200k / cl100k; docs/providers.md): the estimator is within 0.95–1.05 on prose and code
 * but 0.62 on JSON (about 0.5 on hash- and id-heavy tool output counted the way Claude does) and 1.39
 * on Chinese, so uncalibrated it may be off by half. Once the provider has counted a session, its
 * ratio to the estimate corrects later estimates and only the drift of the text mix is left: 10%.
 */
const MARGIN = 0.5;
const CALIBRATED_MARGIN = 0.1;

/** Provider count ÷ estimate, last measured per session state (and the model that counted). */
const calibration = new WeakMap<AgentState, { model: string; ratio: number }>();

/**
 * Counts the next model input against `threshold`. The provider is asked only when the (calibrated)
 * estimate is within the margin of the threshold, so a call clearly under it makes no extra round
 * trip. Counting never fails a reply: any failure of the provider's count falls back to the estimate.
 */
export async function countForTrigger(
  model: ChatModel,
  messages: Msg[],
  tools: ToolSchema[],
  threshold: number,
  options: { counter?: TokenCounter | undefined; state: AgentState; signal?: AbortSignal | undefined },
): Promise<TriggerCount> {
  const estimate = model.countTokens(messages, tools);
  const byEstimate = (): TriggerCount => ({
    tokens: estimate,
    source: "estimate",
    estimate,
    threshold,
    over: estimate > threshold,
  });
  const counter = options.counter ?? "provider";
  if (counter === "estimate" || model.countInputTokens === undefined || estimate === 0) return byEstimate();
  const known = calibration.get(options.state);
  const calibrated = known?.model === model.name ? known.ratio : undefined;
  const margin = calibrated === undefined ? MARGIN : CALIBRATED_MARGIN;
  if (estimate * (calibrated ?? 1) < threshold * (1 - margin)) return byEstimate();
  let tokens: number;
  try {
    const opts = options.signal ? { signal: options.signal } : {};
    tokens = await model.countInputTokens(messages, tools, opts);
  } catch {
    return byEstimate(); // an abort is seen by the model call that follows; nothing fails here
  }
  // The model falls back to its estimate when the endpoint fails: that is not a provider count.
  if (!Number.isFinite(tokens) || tokens === estimate) return byEstimate();
  calibration.set(options.state, { model: model.name, ratio: tokens / estimate });
  return { tokens, source: "provider", estimate, threshold, over: tokens > threshold };
}
