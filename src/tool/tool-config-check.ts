import { checkOptions, type OptionRule } from "../message/option-check.js";

/** What every tool config shares: the name, description, flags, `execute`, the PermissionSubject hooks. */
const COMMON_RULES = {
  name: {
    type: "string",
    required: true,
    check: (value) =>
      /^[a-zA-Z0-9_-]{1,128}$/.test(value as string)
        ? undefined
        : `must be 1-128 letters, digits, "_" or "-", got ${JSON.stringify(value)}`,
  },
  description: { type: "string", required: true },
  readOnly: { type: "boolean" },
  concurrencySafe: { type: "boolean" },
  external: { type: "boolean" },
  idempotent: { type: "boolean" },
  execute: { type: "function", required: true },
  editsFiles: { type: "boolean" },
  isReadOnly: { type: "function" },
  checkPermissions: { type: "function" },
  matchRule: { type: "function" },
  pathsOf: { type: "function" },
  suggestRules: { type: "function" },
  leavesPlanMode: { type: "boolean" },
  preview: { type: "function" },
} satisfies Record<string, OptionRule>;

const EXECUTE_ALIASES = {
  handler: "the function is `execute(input, ctx)`",
  run: "the function is `execute(input, ctx)`",
  call: "the function is `execute(input, ctx)`",
  fn: "the function is `execute(input, ctx)`",
};

/** What a `functionTool` config may hold (function-tool.ts checks that every config key has a rule). */
export const FUNCTION_TOOL_RULES = {
  ...COMMON_RULES,
  input: {
    type: "object",
    required: true,
    expected: "a zod schema",
    check: (value: unknown) =>
      typeof (value as { safeParse?: unknown }).safeParse === "function"
        ? undefined
        : "expected a zod schema (e.g. z.object({...})); for a JSON Schema use jsonSchemaTool",
  },
} satisfies Record<string, OptionRule>;

/** What a `jsonSchemaTool` config may hold (json-schema-tool.ts checks that every config key has a rule). */
export const JSON_SCHEMA_TOOL_RULES = {
  ...COMMON_RULES,
  inputSchema: { type: "object", required: true, expected: "a JSON Schema object" },
} satisfies Record<string, OptionRule>;

/** Checks a `functionTool` config once, at construction (unknown keys with a did-you-mean, wrong types). */
export function checkFunctionToolConfig(config: unknown): void {
  checkOptions(`functionTool config${toolNameOf(config)}`, config, FUNCTION_TOOL_RULES, {
    ...EXECUTE_ALIASES,
    inputSchema: "functionTool takes a zod schema as `input`; for a JSON Schema use jsonSchemaTool",
    parameters: "functionTool takes a zod schema as `input`; for a JSON Schema use jsonSchemaTool",
    schema: "functionTool takes a zod schema as `input`",
  });
}

/** Checks a `jsonSchemaTool` config once, at construction. */
export function checkJsonSchemaToolConfig(config: unknown): void {
  checkOptions(`jsonSchemaTool config${toolNameOf(config)}`, config, JSON_SCHEMA_TOOL_RULES, {
    ...EXECUTE_ALIASES,
    input: "jsonSchemaTool takes a JSON Schema as `inputSchema`; for a zod schema use functionTool",
    parameters: "jsonSchemaTool takes its JSON Schema as `inputSchema`",
    schema: "jsonSchemaTool takes its JSON Schema as `inputSchema`",
  });
}

/** ` "name"` when the config names itself, so the error says which tool. */
function toolNameOf(config: unknown): string {
  const name = (config as { name?: unknown } | null)?.name;
  return typeof name === "string" ? ` "${name}"` : "";
}
