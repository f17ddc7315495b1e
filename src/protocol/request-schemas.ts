import { z } from "zod";
import { formatPath, MsgSchema, ToolResultBlockSchema } from "../message/index.js";
import { ConfirmResultSchema } from "./confirm-result.js";
import { jsonBytes, tooDeepAt } from "./json-bounds.js";

/** How deep a message's `metadata` may nest (the metadata object itself is level 1). */
export const MAX_METADATA_DEPTH = 32;
/** The largest `metadata` of a message, as JSON (UTF-8 bytes). */
export const MAX_METADATA_BYTES = 64 * 1024;
/** How deep any run-starting body may nest (free-form fields such as `providerData` included). */
export const MAX_BODY_DEPTH = 64;

/** A message from a client: a Msg whose `metadata` is within MAX_METADATA_DEPTH and MAX_METADATA_BYTES. */
const ClientMsgSchema = MsgSchema.superRefine((msg, ctx) => {
  if (tooDeepAt(msg.metadata, MAX_METADATA_DEPTH)) {
    ctx.addIssue({
      code: "custom",
      path: ["metadata"],
      message: `nested deeper than ${MAX_METADATA_DEPTH} levels (the limit for metadata)`,
    });
    return;
  }
  const bytes = jsonBytes(msg.metadata);
  if (bytes > MAX_METADATA_BYTES)
    ctx.addIssue({
      code: "custom",
      path: ["metadata"],
      message: `${bytes} bytes as JSON, over the limit of ${MAX_METADATA_BYTES} for metadata`,
    });
});

/** `schema`, refusing a body nested deeper than MAX_BODY_DEPTH (naming where, up to four levels in). */
function withinDepth<T extends z.ZodType>(schema: T): T {
  return schema.superRefine((value, ctx) => {
    const path = tooDeepAt(value, MAX_BODY_DEPTH);
    if (path)
      ctx.addIssue({
        code: "custom",
        path: path.slice(0, 4),
        message: `nested deeper than ${MAX_BODY_DEPTH} levels (the limit for a request body)${path.length > 4 ? ` at ${formatPath(path.slice(0, 6))}…` : ""}`,
      });
  }) as unknown as T;
}

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
export const ReplyBody = withinDepth(
  z
    .strictObject({
      text: z.string().min(1).optional(),
      input: z.union([ClientMsgSchema, z.array(ClientMsgSchema).min(1)]).optional(),
    })
    .refine((body) => body.text === undefined || body.input === undefined, {
      message: "send either text or input, not both",
    }),
);

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
export const ConfirmBody = withinDepth(
  z
    .strictObject({
      replyId: z.string().min(1).optional(),
      answers: z.array(ConfirmAnswerSchema).min(1).optional(),
      confirmResults: z.array(ConfirmResultSchema).min(1).optional(),
    })
    .refine((body) => (body.answers === undefined) !== (body.confirmResults === undefined), {
      message: "send answers or confirmResults (exactly one)",
    }),
);

export const ExternalResultsBody = withinDepth(
  z.strictObject({
    replyId: z.string().min(1).optional(),
    toolResults: z.array(ToolResultBlockSchema).min(1),
  }),
);

export const InterruptBody = z.strictObject({ reason: z.string().max(2000).optional() });

const CHECKPOINT_ID = z.string().regex(/^cp-[1-9][0-9]{0,11}$/, "a checkpoint id (cp-<number>)");

/**
 * `POST /v1/sessions/:id/rewind`: the checkpoint to go back to, and whether the memory writes made
 * since are kept (default) or reverted.
 */
export const RewindBody = z.strictObject({
  checkpoint: CHECKPOINT_ID,
  memory: z.enum(["keep", "revert"]).optional(),
});

/** `POST /v1/sessions/:id/fork`: the checkpoint to start from, and the new session's id and title. */
export const ForkBody = z.strictObject({
  checkpoint: CHECKPOINT_ID,
  sessionId: z.string().optional(),
  title: z.string().trim().min(1, "1 to 200 characters").max(200, "1 to 200 characters").optional(),
});

/** `POST /v1/sessions/:id/messages/:messageId/edit`: the user message's new text. */
export const EditMessageBody = z.strictObject({ text: z.string().min(1, "the new text of the message") });

/** `POST /v1/knowledge-bases`. */
export const CreateKnowledgeBaseBody = z.object({
  name: z.string(),
  description: z.string().max(2000).optional(),
});

/** `POST /v1/knowledge-bases/:name/search`. */
export const KnowledgeSearchBody = z.object({
  query: z.union([z.string().min(1), z.array(z.string().min(1)).min(1).max(10)]),
  topK: z.number().int().min(1).max(50).optional(),
  scoreThreshold: z.number().optional(),
  mode: z.enum(["vector", "keyword", "hybrid"]).optional(),
});

/** `POST /v1/sessions/:id/tools/:name/run` (the studio's tool playground). */
export const RunToolBody = z.strictObject({
  /** The tool's arguments, as a model would send them. */
  input: z.record(z.string(), z.unknown()),
  /** Run it if the permission engine asks (you approving the call, as on an approval card). */
  approved: z.boolean().optional(),
});
