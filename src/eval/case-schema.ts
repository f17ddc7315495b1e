import { z } from "zod";
import { createMsg, type Msg, newId, parseMsg, ValidationError } from "../message/index.js";
import { parseAgentState } from "../state/index.js";
import type { EvalCase } from "./case.js";

/** A message as written in a dataset: text (a user message), `{ role, content }`, or a whole stored Msg. */
const MsgLikeSchema = z.union([
  z.string(),
  z.looseObject({
    role: z.enum(["user", "assistant", "system"]),
    content: z.union([z.string(), z.array(z.looseObject({ type: z.string() }))]),
    name: z.string().optional(),
  }),
]);
type MsgLike = z.infer<typeof MsgLikeSchema>;

const InputLikeSchema = z.union([MsgLikeSchema, z.array(MsgLikeSchema).min(1)]);

const ToolCallSchema = z.object({
  id: z.string().min(1),
  name: z.string().min(1),
  input: z.unknown(),
  decision: z.enum(["allow", "ask", "deny"]).optional(),
  confirmed: z.boolean().optional(),
  result: z.object({ state: z.string(), output: z.string() }).optional(),
});

const NormalMsgSchema = z.object({
  role: z.enum(["user", "assistant", "system"]),
  text: z.string().optional(),
  toolCalls: z.array(z.object({ name: z.string(), input: z.unknown() })).optional(),
  toolResults: z.array(z.object({ name: z.string(), state: z.string(), output: z.string() })).optional(),
  data: z.array(z.string()).optional(),
});

const TurnSchema = z.object({
  request: z
    .object({
      system: z.string().optional(),
      tools: z.array(z.string()).optional(),
      messages: z.array(NormalMsgSchema).optional(),
    })
    .optional(),
  thinking: z.string().optional(),
  text: z.string().optional(),
  toolCalls: z.array(ToolCallSchema).optional(),
  usage: z.object({ inputTokens: z.number(), outputTokens: z.number() }).optional(),
});

export const CaseFileSchema = z.strictObject({
  id: z.string().min(1),
  description: z.string().optional(),
  tags: z.array(z.string()).optional(),
  input: z.union([
    InputLikeSchema,
    z.strictObject({
      messages: InputLikeSchema,
      followUps: z.array(InputLikeSchema).optional(),
      state: z.unknown().optional(),
      files: z.record(z.string(), z.string()).optional(),
    }),
  ]),
  confirmations: z
    .array(
      z.strictObject({
        toolCallId: z.string().optional(),
        tool: z.string().optional(),
        confirmed: z.boolean(),
        input: z.unknown().optional(),
        rules: z.array(z.string()).optional(),
        reason: z.string().optional(),
      }),
    )
    .optional(),
  recording: z.strictObject({ turns: z.array(TurnSchema) }).optional(),
  expect: z
    .array(z.looseObject({ type: z.string().min(1), weight: z.number().positive().optional() }))
    .optional(),
});

function toMsg(value: MsgLike): Msg {
  if (typeof value === "string") return createMsg("user", value);
  if ("id" in value && "createdAt" in value) return parseMsg(value);
  const content =
    typeof value.content === "string"
      ? value.content
      : (value.content.map((block) => ({ id: newId("blk"), ...block })) as unknown as Msg["content"]);
  return createMsg(value.role, content, value.name ? { name: value.name } : {});
}

const toMsgs = (value: MsgLike | MsgLike[]): Msg[] =>
  Array.isArray(value) ? value.map(toMsg) : [toMsg(value)];

/**
 * Checks one case as written in a dataset file and builds the EvalCase: messages become Msgs (role
 * rules enforced), a starting state is validated. `where` names the case in errors (`file:3`).
 */
export function parseCase(value: unknown, where: string): EvalCase {
  const result = CaseFileSchema.safeParse(value);
  if (!result.success) {
    const issue = result.error.issues[0]!;
    throw new ValidationError(`eval case (${where})`, issue.path.join("."), issue.message);
  }
  const raw = result.data;
  const input =
    typeof raw.input === "string" || Array.isArray(raw.input) || "role" in raw.input
      ? { messages: raw.input }
      : raw.input;
  const evalCase: EvalCase = {
    id: raw.id,
    input: { messages: toMsgs(input.messages as MsgLike | MsgLike[]) },
  };
  if ("followUps" in input && input.followUps) evalCase.input.followUps = input.followUps.map(toMsgs);
  if ("state" in input && input.state !== undefined) evalCase.input.state = parseAgentState(input.state);
  if ("files" in input && input.files) evalCase.input.files = input.files;
  if (raw.description !== undefined) evalCase.description = raw.description;
  if (raw.tags) evalCase.tags = raw.tags;
  if (raw.confirmations) evalCase.confirmations = raw.confirmations as EvalCase["confirmations"];
  if (raw.recording) evalCase.recording = raw.recording as EvalCase["recording"];
  if (raw.expect) evalCase.expect = raw.expect as EvalCase["expect"];
  return evalCase;
}
