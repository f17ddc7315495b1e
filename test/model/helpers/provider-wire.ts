import type { TextWire, UsageCounts } from "./openai-wire.js";
import { sse } from "./wire-server.js";

/** Recorded Anthropic, Gemini, Ollama and DashScope wire frames for the tests' own server. */

export function anthropicFrames(texts: string[], usage: UsageCounts, model = "claude-sonnet-4-5"): TextWire {
  const event = (data: Record<string, unknown>) => sse(data, data.type as string);
  return {
    open: [
      event({
        type: "message_start",
        message: {
          id: "msg_1",
          type: "message",
          role: "assistant",
          model,
          content: [],
          usage: { input_tokens: usage.input, output_tokens: 1 },
        },
      }),
      event({ type: "content_block_start", index: 0, content_block: { type: "text", text: "" } }),
    ],
    deltas: texts.map((text) =>
      event({ type: "content_block_delta", index: 0, delta: { type: "text_delta", text } }),
    ),
    close: [
      event({ type: "content_block_stop", index: 0 }),
      event({
        type: "message_delta",
        delta: { stop_reason: "end_turn", stop_sequence: null },
        usage: { output_tokens: usage.output },
      }),
      event({ type: "message_stop" }),
    ],
  };
}

export function anthropicErrorBody(status: number): string {
  const [type, message] =
    status === 401
      ? ["authentication_error", "invalid x-api-key"]
      : status === 429
        ? ["rate_limit_error", "Number of requests has exceeded your rate limit"]
        : ["api_error", "Internal server error"];
  return JSON.stringify({ type: "error", error: { type, message } });
}

export function geminiFrames(texts: string[], usage: UsageCounts, model = "gemini-2.5-flash"): TextWire {
  const chunk = (text: string, last: boolean) =>
    sse({
      candidates: [
        {
          content: { role: "model", parts: [{ text }] },
          index: 0,
          ...(last ? { finishReason: "STOP" } : {}),
        },
      ],
      usageMetadata: { promptTokenCount: usage.input, candidatesTokenCount: last ? usage.output : 0 },
      modelVersion: model,
    });
  return { open: [], deltas: texts.map((text) => chunk(text, false)), close: [chunk("", true)] };
}

export function googleErrorBody(status: number): string {
  const [code, message] =
    status === 401
      ? ["UNAUTHENTICATED", "API key not valid. Please pass a valid API key."]
      : status === 429
        ? ["RESOURCE_EXHAUSTED", "Resource has been exhausted"]
        : ["INTERNAL", "Internal error"];
  return JSON.stringify({ error: { code: status, message, status: code } });
}

export function ollamaFrames(texts: string[], usage: UsageCounts, model = "llama3.1"): TextWire {
  const line = (value: unknown) => `${JSON.stringify(value)}\n`;
  const at = "2026-01-01T00:00:00Z";
  return {
    open: [],
    deltas: texts.map((content) =>
      line({ model, created_at: at, message: { role: "assistant", content }, done: false }),
    ),
    close: [
      line({
        model,
        created_at: at,
        message: { role: "assistant", content: "" },
        done: true,
        done_reason: "stop",
        prompt_eval_count: usage.input,
        eval_count: usage.output,
      }),
    ],
  };
}

export function ollamaErrorBody(status: number): string {
  return JSON.stringify({
    error: status === 401 ? "unauthorized" : status === 429 ? "too many requests" : "server error",
  });
}

export function dashScopeFrames(texts: string[], usage: UsageCounts): TextWire {
  let id = 0;
  const frame = (content: string, finish: string) =>
    `id:${++id}\nevent:result\n:HTTP_STATUS/200\ndata:${JSON.stringify({
      output: { choices: [{ message: { role: "assistant", content }, finish_reason: finish }] },
      usage: {
        input_tokens: usage.input,
        output_tokens: finish === "stop" ? usage.output : 1,
        total_tokens: usage.input + usage.output,
      },
      request_id: "req_1",
    })}\n\n`;
  return { open: [], deltas: texts.map((text) => frame(text, "null")), close: [frame("", "stop")] };
}

export function dashScopeErrorBody(status: number): string {
  const [code, message] =
    status === 401
      ? ["InvalidApiKey", "Invalid API-key provided."]
      : status === 429
        ? ["Throttling.RateQuota", "Requests rate limit exceeded"]
        : ["InternalError", "Internal error"];
  return JSON.stringify({ code, message, request_id: "req_1" });
}
