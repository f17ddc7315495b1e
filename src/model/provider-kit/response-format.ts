import { AgentScopeError } from "../../message/index.js";
import type { ResponseFormat } from "../types.js";

/** The error for a provider without native structured output. */
export function unsupportedResponseFormat(provider: string): AgentScopeError {
  return new AgentScopeError({
    type: "invalid_request",
    message: `${provider} has no native structured output (responseFormat json_schema): use the injected-tool structured output instead`,
    source: provider,
  });
}

/** Checks a ResponseFormat from outside: a json_schema with a usable name and an object schema. */
export function checkResponseFormat(provider: string, format: ResponseFormat): ResponseFormat {
  const bad = (detail: string) =>
    new AgentScopeError({
      type: "invalid_request",
      message: `${provider}: responseFormat ${detail}`,
      source: provider,
    });
  if (format.type !== "json_schema")
    throw bad(`type must be "json_schema", got ${JSON.stringify(format.type)}`);
  if (!/^[a-zA-Z0-9_-]{1,64}$/.test(format.name ?? ""))
    throw bad(`name must be 1-64 letters, digits, _ or -, got ${JSON.stringify(format.name)}`);
  if (format.schema === null || typeof format.schema !== "object")
    throw bad("schema must be a JSON Schema object");
  return format;
}

/** OpenAI's `json_schema` object (Chat `response_format.json_schema`, Responses `text.format`). */
export function openAIJsonSchema(format: ResponseFormat): Record<string, unknown> {
  const schema: Record<string, unknown> = {
    name: format.name,
    schema: format.schema,
    strict: format.strict ?? true,
  };
  if (format.description !== undefined) schema.description = format.description;
  return schema;
}
