import type { ValidateFunction } from "ajv";
import type { CoversKeys } from "../message/option-check.js";
import type { JsonSchema } from "../model/index.js";
import type { PermissionSubject } from "../permission/index.js";
import { checkJsonSchemaToolConfig, type JSON_SCHEMA_TOOL_RULES } from "./tool-config-check.js";
import { type Tool, type ToolCallReturn, type ToolContext, ToolInputError } from "./types.js";

export interface JsonSchemaToolConfig extends Partial<Omit<PermissionSubject, "name">> {
  name: string;
  description: string;
  inputSchema: JsonSchema;
  readOnly?: boolean;
  concurrencySafe?: boolean;
  external?: boolean;
  /** See `Tool.idempotent`. */
  idempotent?: boolean;
  execute(input: Record<string, unknown>, ctx: ToolContext): ToolCallReturn;
}

type AjvInstance = { compile(schema: JsonSchema): ValidateFunction };
let ajv: AjvInstance | undefined;

async function loadAjv(): Promise<AjvInstance> {
  if (ajv) return ajv;
  const module = (await import("ajv")) as unknown as { default: new (opts: object) => AjvInstance };
  ajv = new module.default({ allErrors: false, strict: false, logger: false }); // library code never prints
  return ajv;
}

/** Loads the validator once, before the first call (Ajv is heavy: it stays off `import "agentscope"`). */
export async function prepareJsonSchemaValidation(): Promise<void> {
  await loadAjv();
}

// Every config key has a rule in JSON_SCHEMA_TOOL_RULES (a key added to the config without one fails here).
export type JsonSchemaToolRulesCovered = CoversKeys<JsonSchemaToolConfig, typeof JSON_SCHEMA_TOOL_RULES>;

/**
 * A tool defined by a raw JSON Schema, validated with Ajv. Use `await jsonSchemaTool(...)`: the
 * validator is compiled once here, not per call. The config is checked first (unknown keys with a
 * "did you mean", wrong types): the promise rejects with a ValidationError naming the key.
 */
export async function jsonSchemaTool(config: JsonSchemaToolConfig): Promise<Tool<Record<string, unknown>>> {
  checkJsonSchemaToolConfig(config);
  const { inputSchema, execute, readOnly = false, concurrencySafe, ...rest } = config;
  const { $schema: _ignored, ...schema } = inputSchema;
  const validate = (await loadAjv()).compile(schema);
  return {
    ...rest,
    readOnly,
    concurrencySafe: concurrencySafe ?? readOnly,
    inputSchema: schema,
    parse(value: unknown) {
      if (validate(value)) return value as Record<string, unknown>;
      const error = validate.errors?.[0];
      const where = error?.instancePath ? error.instancePath.slice(1).replaceAll("/", ".") : "(arguments)";
      throw new ToolInputError(`${where}: ${error?.message ?? "invalid arguments"}`);
    },
    call: execute,
  };
}
