/**
 * What the mock server streams, chosen by the request's `model`:
 * - `text-N`: N text deltas, a finish chunk, a usage chunk, `[DONE]`;
 * - `tool`: a `get_weather` call streamed in three fragments, or, once the last message is the tool
 *   result, a short answer of ANSWER_DELTAS deltas.
 * Bodies are built once per script and cached: the server spends nothing per request but the write.
 * Two chunk shapes: `trimmed` (the fields a client needs) and `real` (what api.openai.com sends with
 * `stream_options.include_usage`: `service_tier`, `system_fingerprint`, `logprobs`, `usage: null` on
 * every chunk, an `obfuscation` pad, token details in the usage chunk). The paced mock uses `real`.
 */

export const TOOL_NAME = "get_weather";
export const TOOL_ARGS = { city: "Paris" };
export const ANSWER_DELTAS = 5;

/** The k-th text delta (k from 0): a short word, as a tokenizer would send it. */
export function deltaText(k: number): string {
  return `w${k % 100} `;
}

/** The full text a client must assemble from `count` deltas. */
export function expectedText(count: number): string {
  let text = "";
  for (let k = 0; k < count; k++) text += deltaText(k);
  return text;
}

export const toolResultText = (city: string) => `Sunny, 21 °C in ${city}`;

export type ChunkShape = "trimmed" | "real";

const HEAD = { id: "chatcmpl-bench", object: "chat.completion.chunk", created: 1_700_000_000 };

function frame(
  shape: ChunkShape,
  model: string,
  choice: Record<string, unknown> | undefined,
  extra: Record<string, unknown> = {},
): string {
  const chunk =
    shape === "trimmed"
      ? { ...HEAD, model, choices: choice === undefined ? [] : [choice], ...extra }
      : {
          ...HEAD,
          model,
          service_tier: "default",
          system_fingerprint: "fp_bench0001",
          choices: choice === undefined ? [] : [{ ...choice, logprobs: null }],
          usage: null,
          obfuscation: "aBcD3f",
          ...extra,
        };
  return `data: ${JSON.stringify(chunk)}\n\n`;
}

function usage(shape: ChunkShape, completionTokens: number): Record<string, unknown> {
  const counts = {
    prompt_tokens: 10,
    completion_tokens: completionTokens,
    total_tokens: 10 + completionTokens,
  };
  return shape === "trimmed"
    ? counts
    : {
        ...counts,
        prompt_tokens_details: { cached_tokens: 0, audio_tokens: 0 },
        completion_tokens_details: {
          reasoning_tokens: 0,
          audio_tokens: 0,
          accepted_prediction_tokens: 0,
          rejected_prediction_tokens: 0,
        },
      };
}

function closing(shape: ChunkShape, model: string, finishReason: string, completionTokens: number): string[] {
  return [
    frame(shape, model, { index: 0, delta: {}, finish_reason: finishReason }),
    frame(shape, model, undefined, { usage: usage(shape, completionTokens) }),
    "data: [DONE]\n\n",
  ];
}

function textEvents(model: string, count: number, shape: ChunkShape): string[] {
  const parts = [
    frame(shape, model, { index: 0, delta: { role: "assistant", content: "" }, finish_reason: null }),
  ];
  for (let k = 0; k < count; k++) {
    parts.push(frame(shape, model, { index: 0, delta: { content: deltaText(k) }, finish_reason: null }));
  }
  parts.push(...closing(shape, model, "stop", count));
  return parts;
}

function toolCallEvents(model: string, shape: ChunkShape): string[] {
  const args = JSON.stringify(TOOL_ARGS);
  const cut = [0, 5, 12, args.length];
  const parts = [
    frame(shape, model, { index: 0, delta: { role: "assistant", content: null }, finish_reason: null }),
  ];
  for (let i = 0; i < cut.length - 1; i++) {
    const fn = { arguments: args.slice(cut[i], cut[i + 1]) } as Record<string, string>;
    const call: Record<string, unknown> = { index: 0, function: fn };
    if (i === 0) {
      call.id = "call_bench_1";
      call.type = "function";
      fn.name = TOOL_NAME;
    }
    parts.push(frame(shape, model, { index: 0, delta: { tool_calls: [call] }, finish_reason: null }));
  }
  parts.push(...closing(shape, model, "tool_calls", 12));
  return parts;
}

/** The SSE events for one request (the parsed JSON body of a Chat Completions call), one per item. */
export function eventsFor(
  request: { model?: string; messages?: Array<{ role?: string }> },
  shape: ChunkShape = "trimmed",
): string[] {
  const model = request.model ?? "";
  const text = /^text-(\d+)$/.exec(model);
  if (text) return textEvents(model, Number(text[1]), shape);
  if (model === "tool") {
    const last = request.messages?.at(-1);
    return last?.role === "tool" ? textEvents(model, ANSWER_DELTAS, shape) : toolCallEvents(model, shape);
  }
  throw new Error(`the mock has no script for model "${model}" (use text-N or tool)`);
}

/** The SSE body for one request: every event, concatenated. */
export function bodyFor(
  request: { model?: string; messages?: Array<{ role?: string }> },
  shape: ChunkShape = "trimmed",
): string {
  return eventsFor(request, shape).join("");
}
