/**
 * What the mock server streams, chosen by the request's `model`:
 * - `text-N`: N text deltas, a finish chunk, a usage chunk, `[DONE]`;
 * - `tool`: a `get_weather` call streamed in three fragments, or, once the last message is the tool
 *   result, a short answer of ANSWER_DELTAS deltas.
 * Bodies are built once per script and cached: the server spends nothing per request but the write.
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

const HEAD = { id: "chatcmpl-bench", object: "chat.completion.chunk", created: 1_700_000_000 };

function frame(model: string, choice: unknown, extra: Record<string, unknown> = {}): string {
  const chunk = { ...HEAD, model, choices: choice === undefined ? [] : [choice], ...extra };
  return `data: ${JSON.stringify(chunk)}\n\n`;
}

function closing(model: string, finishReason: string, completionTokens: number): string {
  return (
    frame(model, { index: 0, delta: {}, finish_reason: finishReason }) +
    frame(model, undefined, {
      usage: { prompt_tokens: 10, completion_tokens: completionTokens, total_tokens: 10 + completionTokens },
    }) +
    "data: [DONE]\n\n"
  );
}

export function textBody(model: string, count: number): string {
  const parts = [frame(model, { index: 0, delta: { role: "assistant", content: "" }, finish_reason: null })];
  for (let k = 0; k < count; k++) {
    parts.push(frame(model, { index: 0, delta: { content: deltaText(k) }, finish_reason: null }));
  }
  parts.push(closing(model, "stop", count));
  return parts.join("");
}

export function toolCallBody(model: string): string {
  const args = JSON.stringify(TOOL_ARGS);
  const cut = [0, 5, 12, args.length];
  const parts = [
    frame(model, { index: 0, delta: { role: "assistant", content: null }, finish_reason: null }),
  ];
  for (let i = 0; i < cut.length - 1; i++) {
    const fn = { arguments: args.slice(cut[i], cut[i + 1]) } as Record<string, string>;
    const call: Record<string, unknown> = { index: 0, function: fn };
    if (i === 0) {
      call.id = "call_bench_1";
      call.type = "function";
      fn.name = TOOL_NAME;
    }
    parts.push(frame(model, { index: 0, delta: { tool_calls: [call] }, finish_reason: null }));
  }
  parts.push(closing(model, "tool_calls", 12));
  return parts.join("");
}

/** The SSE body for one request (the parsed JSON body of a Chat Completions call). */
export function bodyFor(request: { model?: string; messages?: Array<{ role?: string }> }): string {
  const model = request.model ?? "";
  const text = /^text-(\d+)$/.exec(model);
  if (text) return textBody(model, Number(text[1]));
  if (model === "tool") {
    const last = request.messages?.at(-1);
    return last?.role === "tool" ? textBody(model, ANSWER_DELTAS) : toolCallBody(model);
  }
  throw new Error(`the mock has no script for model "${model}" (use text-N or tool)`);
}
