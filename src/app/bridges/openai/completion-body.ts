import type { HttpError } from "../../server/http-error.js";
import type { BridgeFrames } from "../follow-stream.js";
import {
  type ChatDelta,
  type ChatFinish,
  type ChatTranslation,
  type ChatUsage,
  finishChat,
  translateChatEvent,
} from "./chat-translation.js";

/** What every chunk and the completion share: the id (from the reply id), the time, the agent. */
export interface CompletionHead {
  id: string;
  created: number;
  model: string;
}

/** The non-streamed `chat.completion` body: one choice with the whole message, usage and our extension. */
export function chatCompletion(
  head: CompletionHead,
  text: string,
  reasoning: string,
  usage: ChatUsage,
  finish: ChatFinish,
) {
  return {
    ...head,
    object: "chat.completion",
    choices: [
      {
        index: 0,
        message: {
          role: "assistant",
          content: text + (finish.suffix ?? ""),
          ...(reasoning !== "" ? { reasoning_content: reasoning } : {}),
          refusal: null,
        },
        logprobs: null,
        finish_reason: finish.finish_reason,
      },
    ],
    usage,
    agentscope: finish.extension,
  };
}

/**
 * The SSE frames of a streamed completion: a first chunk with the role, a chunk per delta, a last
 * chunk with the finish reason and the `agentscope` extension, a usage chunk (no choices) when the
 * client asked with `stream_options.include_usage`, then `[DONE]`. A failed reply ends with an
 * `error` frame instead, which the `openai` client raises as an APIError.
 */
export function chatFrames(head: CompletionHead, t: ChatTranslation, includeUsage: boolean): BridgeFrames {
  let started = false;
  const chunk = (delta: ChatDelta & { role?: "assistant" }, finishReason: string | null = null, extra = {}) =>
    `data: ${JSON.stringify({
      ...head,
      object: "chat.completion.chunk",
      choices: [{ index: 0, delta, logprobs: null, finish_reason: finishReason }],
      ...extra,
    })}\n\n`;
  const opening = () => {
    if (started) return "";
    started = true;
    return chunk({ role: "assistant", content: "" });
  };
  return {
    event(event) {
      const delta = translateChatEvent(t, event);
      return delta ? opening() + chunk(delta) : "";
    },
    heartbeat: () => ": keep-alive\n\n",
    finish(error?: HttpError) {
      const finish = finishChat(t);
      const failure = error ? { message: error.message, type: error.type } : finish.error;
      if (failure) return `data: ${JSON.stringify({ error: failure })}\n\n`;
      let text = opening();
      if (finish.suffix) text += chunk({ content: finish.suffix });
      text += chunk({}, finish.finish_reason, { agentscope: finish.extension });
      if (includeUsage) {
        text += `data: ${JSON.stringify({ ...head, object: "chat.completion.chunk", choices: [], usage: t.usage })}\n\n`;
      }
      return `${text}data: [DONE]\n\n`;
    },
  };
}
