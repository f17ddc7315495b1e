import { sse } from "./wire-server.js";

/** Recorded OpenAI wire frames for the tests' own server (what aimock cannot script). */

export interface TextWire {
  open: string[];
  deltas: string[];
  close: string[];
}

export interface UsageCounts {
  input: number;
  output: number;
  cached?: number;
}

export function chatCompletionFrames(texts: string[], usage: UsageCounts, model = "gpt-4o"): TextWire {
  const chunk = (choices: unknown[], extra: Record<string, unknown> = {}) =>
    sse({ id: "chatcmpl-1", object: "chat.completion.chunk", created: 1, model, choices, ...extra });
  return {
    open: [chunk([{ index: 0, delta: { role: "assistant", content: "" }, finish_reason: null }])],
    deltas: texts.map((text) => chunk([{ index: 0, delta: { content: text }, finish_reason: null }])),
    close: [
      chunk([{ index: 0, delta: {}, finish_reason: "stop" }]),
      chunk([], {
        usage: {
          prompt_tokens: usage.input,
          completion_tokens: usage.output,
          total_tokens: usage.input + usage.output,
          prompt_tokens_details: { cached_tokens: usage.cached ?? 0 },
        },
      }),
      sse("[DONE]"),
    ],
  };
}

export function responsesFrames(texts: string[], usage: UsageCounts, model = "gpt-4o"): TextWire {
  const event = (type: string, body: Record<string, unknown>) => sse({ type, ...body }, type);
  const item = { type: "message", id: "msg_1", role: "assistant", status: "in_progress", content: [] };
  const full = texts.join("");
  return {
    open: [
      event("response.created", { response: { id: "resp_1", model, status: "in_progress", output: [] } }),
      event("response.output_item.added", { output_index: 0, item }),
      event("response.content_part.added", {
        item_id: "msg_1",
        output_index: 0,
        content_index: 0,
        part: { type: "output_text", text: "" },
      }),
    ],
    deltas: texts.map((delta) =>
      event("response.output_text.delta", { item_id: "msg_1", output_index: 0, content_index: 0, delta }),
    ),
    close: [
      event("response.output_text.done", { item_id: "msg_1", output_index: 0, content_index: 0, text: full }),
      event("response.output_item.done", {
        output_index: 0,
        item: {
          ...item,
          status: "completed",
          content: [{ type: "output_text", text: full, annotations: [] }],
        },
      }),
      event("response.completed", {
        response: {
          id: "resp_1",
          model,
          status: "completed",
          usage: {
            input_tokens: usage.input,
            output_tokens: usage.output,
            total_tokens: usage.input + usage.output,
            input_tokens_details: { cached_tokens: usage.cached ?? 0 },
          },
        },
      }),
    ],
  };
}

export function openAIErrorBody(status: number): string {
  const [message, code] =
    status === 401
      ? ["Incorrect API key provided: sk-bad.", "invalid_api_key"]
      : status === 429
        ? ["Rate limit reached for requests", "rate_limit_exceeded"]
        : ["The server had an error", "server_error"];
  return JSON.stringify({ error: { message, type: "invalid_request_error", code, param: null } });
}
