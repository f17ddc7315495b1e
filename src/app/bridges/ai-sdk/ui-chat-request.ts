import { z } from "zod";
import { type ContentBlock, type Msg, textBlock, userMsg } from "../../../message/index.js";
import type { ConfirmAnswer } from "../../../protocol/index.js";
import { HttpError } from "../../server/http-error.js";
import { imageBlock } from "../openai/chat-request.js";

const UiPart = z.object({ type: z.string().min(1) }).loose();
const UiMessage = z
  .object({
    id: z.string(),
    role: z.enum(["user", "assistant", "system"]),
    parts: z.array(UiPart),
  })
  .loose();

/** What `useChat`'s default transport POSTs: the chat id, every UI message, and why it sends. */
export const UiChatRequestSchema = z
  .object({
    id: z.string().min(1),
    messages: z.array(UiMessage).min(1),
    trigger: z.enum(["submit-message", "regenerate-message"]).default("submit-message"),
    messageId: z.string().optional(),
  })
  .loose();
export type UiChatRequest = z.infer<typeof UiChatRequestSchema>;
type UiMessagePart = z.infer<typeof UiPart>;

/** What one request asks of the session: a reply to a new user message, or the answers to approvals. */
export type UiChatTurn =
  | { kind: "message"; input: Msg[] }
  | { kind: "approvals"; replyId: string; answers: ConfirmAnswer[] };

const ApprovedPart = z
  .object({
    toolCallId: z.string().min(1),
    state: z.literal("approval-responded"),
    approval: z.object({ id: z.string(), approved: z.boolean(), reason: z.string().optional() }).loose(),
  })
  .loose();

/**
 * The turn a request stands for. The session keeps the agent's own history, so only the last message
 * is read: a user message is the new input (text and file parts); an assistant message carries the
 * page's answers to the approvals it asked for (tool parts in `approval-responded`), which go to the
 * permission engine as any confirmation does. `regenerate-message` is refused (the agent's history
 * is not rewound from the page).
 */
export function chatTurn(request: UiChatRequest): UiChatTurn {
  if (request.trigger === "regenerate-message")
    throw new HttpError(
      400,
      "invalid_request",
      "trigger: regenerate-message is not supported (the session keeps the agent's history); send a new message instead",
    );
  const last = request.messages.at(-1)!;
  const where = `messages[${request.messages.length - 1}]`;
  if (last.role === "user") return { kind: "message", input: [userMsg(userBlocks(last.parts, where))] };
  if (last.role === "assistant") {
    const answers: ConfirmAnswer[] = [];
    for (const part of last.parts) {
      if (part.type !== "dynamic-tool" && !part.type.startsWith("tool-")) continue;
      const answered = ApprovedPart.safeParse(part);
      if (!answered.success) continue;
      const { approval } = answered.data;
      answers.push({
        toolCallId: answered.data.toolCallId,
        confirmed: approval.approved,
        ...(approval.reason ? { reason: approval.reason } : {}),
      });
    }
    if (answers.length > 0) return { kind: "approvals", replyId: last.id, answers };
  }
  throw new HttpError(
    400,
    "invalid_request",
    `${where}: the last message must be a user message or an assistant message with answered approvals (tool parts in state approval-responded)`,
  );
}

function userBlocks(parts: UiMessagePart[], where: string): ContentBlock[] {
  const blocks: ContentBlock[] = [];
  parts.forEach((part, index) => {
    if (part.type === "text" && typeof part.text === "string") {
      if (part.text !== "") blocks.push(textBlock(part.text));
    } else if (part.type === "file" && typeof part.url === "string" && part.url !== "") {
      blocks.push(imageBlock(part.url, `${index}`));
    } else if (part.type !== "step-start" && !part.type.startsWith("data-")) {
      throw new HttpError(
        400,
        "invalid_request",
        `${where}.parts[${index}]: a user message takes text and file parts, not "${part.type}"`,
      );
    }
  });
  if (blocks.length === 0)
    throw new HttpError(400, "invalid_request", `${where}: the user message has no text or file part`);
  return blocks;
}
