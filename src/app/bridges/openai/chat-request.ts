import { z } from "zod";
import { type ContentBlock, createMsg, type Msg, textBlock } from "../../../message/index.js";
import { HttpError } from "../../server/http-error.js";

const TextPart = z.object({ type: z.literal("text"), text: z.string() }).loose();
const ImagePart = z
  .object({ type: z.literal("image_url"), image_url: z.object({ url: z.string().min(1) }).loose() })
  .loose();
const Content = z.union([z.string(), z.array(z.union([TextPart, ImagePart])), z.null()]);

const ChatMessage = z
  .object({
    role: z.enum(["system", "developer", "user", "assistant", "tool", "function"]),
    content: Content.optional(),
    name: z.string().optional(),
  })
  .loose();

/**
 * The Chat Completions request this endpoint reads. `model` names an agent; the agent's own tools,
 * system prompt and model settings govern the reply, so sampling fields are accepted and ignored.
 * `session_id` (or the `x-agentscope-session-id` header) continues a session of the service.
 */
export const ChatCompletionRequestSchema = z
  .object({
    model: z.string().min(1),
    messages: z.array(ChatMessage).min(1),
    stream: z.boolean().nullish(),
    stream_options: z.object({ include_usage: z.boolean().nullish() }).loose().nullish(),
    tools: z.array(z.unknown()).nullish(),
    n: z.number().int().nullish(),
    session_id: z.string().min(1).max(200).optional(),
  })
  .loose();
export type ChatCompletionRequest = z.infer<typeof ChatCompletionRequestSchema>;
type ChatMessage = z.infer<typeof ChatMessage>;

/** Refuses what the endpoint cannot honour, naming the field and what to do instead. */
export function checkChatRequest(request: ChatCompletionRequest): void {
  if (request.tools && request.tools.length > 0) {
    throw new HttpError(
      400,
      "invalid_request",
      "tools: the agent's own tools run server-side; client-side tools are not supported here (omit tools)",
    );
  }
  if (request.n !== undefined && request.n !== null && request.n !== 1) {
    throw new HttpError(
      400,
      "invalid_request",
      "n: an agent gives one reply per request; send n = 1 or omit it",
    );
  }
}

/**
 * The input of the reply. A new conversation (no session) gets every user and assistant message as
 * its history, so a stateless client keeps working; a continued session has its own history, so only
 * the user messages after the request's last assistant message are new. System and developer
 * messages are ignored (the agent's system prompt governs); tool messages belong to client-side
 * tools, which this endpoint does not run.
 */
export function chatInput(messages: ChatMessage[], continued: boolean): Msg[] {
  const lastAssistant = messages.findLastIndex((m) => m.role === "assistant");
  const relevant = continued ? messages.slice(lastAssistant + 1) : messages;
  const input: Msg[] = [];
  relevant.forEach((message, index) => {
    if (message.role !== "user" && message.role !== "assistant") return;
    const content = blocksOf(message, index);
    if (content.length > 0) input.push(createMsg(message.role, content));
  });
  if (input.at(-1)?.role !== "user") {
    throw new HttpError(
      400,
      "invalid_request",
      continued
        ? "messages: a continued session needs a new user message after the last assistant message"
        : "messages: the last message with content must be from the user",
    );
  }
  return input;
}

function blocksOf(message: ChatMessage, index: number): ContentBlock[] {
  const content = message.content;
  if (content === undefined || content === null || content === "") return [];
  if (typeof content === "string") return [textBlock(content)];
  const blocks: ContentBlock[] = [];
  for (const part of content) {
    if (part.type === "text") {
      if (part.text !== "") blocks.push(textBlock(part.text));
      continue;
    }
    if (message.role !== "user") {
      throw new HttpError(400, "invalid_request", `messages[${index}]: only user messages may carry images`);
    }
    blocks.push(imageBlock(part.image_url.url, `${index}-${blocks.length}`));
  }
  return blocks;
}

const DATA_URL = /^data:([\w.+-]+\/[\w.+-]+);base64,(.*)$/s;

/** A data block from a URL: a `data:` URL becomes base64 (with its media type), any other stays a URL. */
export function imageBlock(url: string, id: string): ContentBlock {
  const data = DATA_URL.exec(url);
  if (data)
    return {
      type: "data",
      id: `image-${id}`,
      source: { type: "base64", mediaType: data[1]!, data: data[2]! },
    };
  return { type: "data", id: `image-${id}`, source: { type: "url", url } };
}
