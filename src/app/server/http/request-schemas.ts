import { z } from "zod";
import { ConfirmResultSchema } from "../../../event/index.js";
import { MsgSchema, ToolResultBlockSchema } from "../../../message/index.js";

export const CreateSessionBody = z.strictObject({
  sessionId: z.string().min(1).max(200).optional(),
  agent: z.string().min(1).optional(),
  title: z.string().max(500).optional(),
});

/** `PATCH /v1/sessions/:id`: the session's new title. */
export const RenameSessionBody = z.strictObject({
  title: z.string().trim().min(1, "1 to 200 characters").max(200, "1 to 200 characters"),
});

/** `text` (a user message from plain text) or `input` (one Msg or several); neither = continue. */
export const ReplyBody = z
  .strictObject({
    text: z.string().min(1).optional(),
    input: z.union([MsgSchema, z.array(MsgSchema).min(1)]).optional(),
  })
  .refine((body) => body.text === undefined || body.input === undefined, {
    message: "send either text or input, not both",
  });

export const ConfirmAnswerSchema = z.strictObject({
  toolCallId: z.string().min(1),
  confirmed: z.boolean(),
  /** Permission rules to allow from now on (e.g. the suggestedRules of REQUIRE_USER_CONFIRM). */
  rules: z.array(z.string()).optional(),
  reason: z.string().optional(),
  /** Edited arguments (JSON text) to run the call with instead. */
  input: z.string().optional(),
});

/** `answers` (by tool call id) or `confirmResults` (the USER_CONFIRM_RESULT form). */
export const ConfirmBody = z
  .strictObject({
    replyId: z.string().min(1).optional(),
    answers: z.array(ConfirmAnswerSchema).min(1).optional(),
    confirmResults: z.array(ConfirmResultSchema).min(1).optional(),
  })
  .refine((body) => (body.answers === undefined) !== (body.confirmResults === undefined), {
    message: "send answers or confirmResults (exactly one)",
  });

export const ExternalResultsBody = z.strictObject({
  replyId: z.string().min(1).optional(),
  toolResults: z.array(ToolResultBlockSchema).min(1),
});

export const InterruptBody = z.strictObject({ reason: z.string().max(2000).optional() });
