import { z } from "zod";
import type { ContentBlock } from "./blocks.js";
import { AgentScopeError, type ErrorType } from "./errors.js";
import { type Msg, ROLE_BLOCKS } from "./msg.js";

export const TextBlockSchema = z.object({
  type: z.literal("text"),
  id: z.string(),
  text: z.string(),
  refusal: z.boolean().optional(),
  itemId: z.string().optional(),
  itemStatus: z.string().optional(),
  phase: z.string().optional(),
  provider: z.string().optional(),
  citations: z
    .array(
      z.object({
        url: z.string().optional(),
        title: z.string().optional(),
        citedText: z.string().optional(),
        start: z.number().optional(),
        end: z.number().optional(),
      }),
    )
    .optional(),
});

export const StopReasonSchema = z.enum([
  "stop",
  "tool_calls",
  "length",
  "content_filter",
  "refusal",
  "other",
]);

export const ThinkingBlockSchema = z.object({
  type: z.literal("thinking"),
  id: z.string(),
  thinking: z.string(),
  signature: z.string().optional(),
  redactedData: z.string().optional(),
  itemId: z.string().optional(),
  provider: z.string().optional(),
});

export const HintBlockSchema = z.object({ type: z.literal("hint"), id: z.string(), text: z.string() });

export const DataSourceSchema = z.discriminatedUnion("type", [
  z.object({ type: z.literal("base64"), mediaType: z.string().min(1), data: z.string() }),
  z.object({ type: z.literal("url"), mediaType: z.string().optional(), url: z.string().min(1) }),
]);

export const DataBlockSchema = z.object({
  type: z.literal("data"),
  id: z.string(),
  source: DataSourceSchema,
  name: z.string().optional(),
});

/** Fields of a tool run the provider did itself (see ProviderExecution). */
const providerExecution = {
  executedBy: z.literal("provider").optional(),
  provider: z.string().optional(),
  providerData: z.unknown().optional(),
};

export const ToolCallBlockSchema = z.object({
  type: z.literal("tool_call"),
  id: z.string().min(1),
  name: z.string().min(1),
  input: z.string(),
  state: z.enum(["pending", "asking", "allowed", "submitted", "finished"]),
  ...providerExecution,
});

export const ToolResultBlockSchema = z.object({
  type: z.literal("tool_result"),
  id: z.string().min(1),
  name: z.string(),
  output: z.union([z.string(), z.array(z.discriminatedUnion("type", [TextBlockSchema, DataBlockSchema]))]),
  state: z.enum(["success", "error", "interrupted", "denied", "running"]),
  ...providerExecution,
});

export const ContentBlockSchema = z.discriminatedUnion("type", [
  TextBlockSchema,
  ThinkingBlockSchema,
  HintBlockSchema,
  DataBlockSchema,
  ToolCallBlockSchema,
  ToolResultBlockSchema,
]);

export const UsageSchema = z.object({
  inputTokens: z.number().nonnegative(),
  outputTokens: z.number().nonnegative(),
  cacheReadTokens: z.number().nonnegative().optional(),
  cacheWriteTokens: z.number().nonnegative().optional(),
});

export const CostSchema = z.object({
  usd: z.number().nonnegative().nullable(),
  pricedUsd: z.number().nonnegative(),
  unpriced: z.array(z.string()).optional(),
  priceAsOf: z.string().optional(),
});

export const ErrorInfoSchema = z.object({
  type: z.enum([
    "authentication",
    "permission",
    "rate_limit",
    "invalid_request",
    "not_found",
    "upstream",
    "connection",
    "timeout",
    "aborted",
    "internal",
  ]),
  message: z.string(),
  status: z.number().optional(),
  source: z.string().optional(),
});

export const MsgSchema = z
  .object({
    id: z.string().min(1),
    name: z.string(),
    role: z.enum(["user", "assistant", "system"]),
    content: z.array(ContentBlockSchema),
    metadata: z.record(z.string(), z.unknown()),
    createdAt: z.string(),
    usage: UsageSchema.optional(),
    cost: CostSchema.optional(),
    finishedReason: z.enum(["completed", "interrupted", "exceed_max_iters", "error", "stopped"]).optional(),
    stopReason: StopReasonSchema.optional(),
    structuredOutput: z.unknown().optional(),
    error: ErrorInfoSchema.optional(),
  })
  .superRefine((msg, ctx) => {
    const allowed = ROLE_BLOCKS[msg.role];
    msg.content.forEach((block, index) => {
      if (!allowed.has(block.type)) {
        ctx.addIssue({
          code: "custom",
          path: ["content", index, "type"],
          message: `a ${msg.role} message cannot hold a "${block.type}" block`,
        });
      }
    });
  });

/** Thrown when data from outside is not a valid Msg (or event); `path` names the first bad field. */
export class ValidationError extends AgentScopeError {
  static override readonly errorType: ErrorType = "invalid_request";
  constructor(
    readonly what: string,
    readonly path: string,
    readonly detail: string,
  ) {
    super(`invalid ${what}: ${path || "(root)"}: ${detail}`);
    this.name = "ValidationError";
  }
}

/** Formats a zod path like `content[2].source.data`. */
export function formatPath(path: ReadonlyArray<PropertyKey>): string {
  let out = "";
  for (const key of path) {
    if (typeof key === "number") out += `[${key}]`;
    else out += out === "" ? String(key) : `.${String(key)}`;
  }
  return out;
}

/** Parses with a schema, throwing a ValidationError that names the first bad field. */
export function parseWith<T>(schema: z.ZodType<T>, value: unknown, what: string): T {
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  const issue = result.error.issues[0]!;
  throw new ValidationError(what, formatPath(issue.path), issue.message);
}

/** Validates a Msg from outside (HTTP, a store, a file); accepts a JSON string or parsed value. */
export function parseMsg(json: unknown): Msg {
  const value = typeof json === "string" ? parseJsonOrThrow(json, "Msg") : json;
  return parseWith(MsgSchema, value, "Msg") as Msg;
}

export function parseJsonOrThrow(text: string, what: string): unknown {
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new ValidationError(what, "", `not JSON (${(error as Error).message})`);
  }
}

export type { ContentBlock };
