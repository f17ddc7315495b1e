import { z } from "zod";
import { formatPath } from "../message/index.js";
import type { CoversKeys } from "../message/option-check.js";
import type { JsonSchema } from "../model/index.js";
import type { PermissionSubject } from "../permission/index.js";
import { checkFunctionToolConfig, type FUNCTION_TOOL_RULES } from "./tool-config-check.js";
import {
  type Tool,
  type ToolCallReturn,
  type ToolChangePreview,
  type ToolContext,
  ToolInputError,
} from "./types.js";

export interface FunctionToolConfig<S extends z.ZodType> extends Partial<Omit<PermissionSubject, "name">> {
  name: string;
  description: string;
  input: S;
  /** Never changes anything (default false). */
  readOnly?: boolean;
  /** Safe to run alongside other safe calls (default: same as readOnly). */
  concurrencySafe?: boolean;
  external?: boolean;
  /** Running it twice with the same `ctx.idempotencyKey` is one effect (see `Tool.idempotent`). */
  idempotent?: boolean;
  /** The file change a call would make, for the approval's diff (see `Tool.preview`). */
  preview?(input: z.infer<S>): ToolChangePreview | undefined;
  execute(input: z.infer<S>, ctx: ToolContext): ToolCallReturn;
}

/** Describes the zod issues of a failed parse for the model to read and fix. */
export function describeZodError(error: z.ZodError): string {
  return error.issues
    .slice(0, 5)
    .map((issue) => `${formatPath(issue.path) || "(arguments)"}: ${issue.message}`)
    .join("; ");
}

/** JSON Schema for a zod schema, in the shape providers take (no `$schema` key). */
export function zodToJsonSchema(schema: z.ZodType): JsonSchema {
  const { $schema: _ignored, ...rest } = z.toJSONSchema(schema, {
    target: "draft-2020-12",
    io: "input",
  }) as JsonSchema;
  return rest;
}

// Every config key has a rule in FUNCTION_TOOL_RULES (a key added to the config without one fails here).
export type FunctionToolRulesCovered = CoversKeys<FunctionToolConfig<z.ZodType>, typeof FUNCTION_TOOL_RULES>;

/**
 * A tool from a function and a zod schema; the JSON Schema the model sees is derived from zod. The
 * config is checked here (unknown keys with a "did you mean", wrong types): a ValidationError names
 * the key.
 */
export function functionTool<S extends z.ZodType>(config: FunctionToolConfig<S>): Tool<z.infer<S>> {
  checkFunctionToolConfig(config);
  const { input, execute, readOnly = false, concurrencySafe, ...rest } = config;
  return {
    ...rest,
    readOnly,
    concurrencySafe: concurrencySafe ?? readOnly,
    inputSchema: zodToJsonSchema(input),
    parse(value: unknown) {
      const result = input.safeParse(value);
      if (!result.success) throw new ToolInputError(describeZodError(result.error));
      return result.data;
    },
    call: execute,
  };
}
