import type { z } from "zod";
import type { ContentBlock } from "../message/index.js";
import type { ChatModel, JsonSchema, ResponseFormat } from "../model/core.js";
import { describeZodError, zodToJsonSchema } from "../tool/index.js";
import { ReplyStateError } from "./errors.js";

/**
 * How a reply gets its structured output: `"tool"` injects `generate_structured_output` (every
 * provider; the default), `"native"` asks the provider to constrain the answer text to the schema
 * (`responseFormat`) and parses it, `"auto"` picks native where the model supports it for this reply.
 */
export type StructuredOutputMode = "auto" | "tool" | "native";

/** The JSON Schema `name` the provider sees in native mode. */
export const NATIVE_SCHEMA_NAME = "structured_output";

/**
 * The mode a reply runs in. `auto` is native when every model that may answer (the model and the
 * fallback) takes `responseFormat` beside tools, or takes it alone and the reply has no tools; else
 * tool. `native` on a model that has none is an error before anything runs.
 */
export function resolveStructuredMode(
  mode: StructuredOutputMode,
  models: ChatModel[],
  hasTools: boolean,
): "tool" | "native" {
  if (mode === "tool") return "tool";
  if (mode === "native") {
    const without = models.find((m) => m.nativeStructuredOutput === false);
    if (without) {
      throw new ReplyStateError(
        `structuredOutputMode "native": model "${without.name}" (${without.provider}) has no native structured output; use "tool" or "auto"`,
      );
    }
    return "native";
  }
  const fits = (m: ChatModel) =>
    m.nativeStructuredOutput === "with_tools" || (m.nativeStructuredOutput === "without_tools" && !hasTools);
  return models.every(fits) ? "native" : "tool";
}

/**
 * The `responseFormat` for a zod schema. It is sent `strict` (OpenAI) when it can be: every object
 * closed (`additionalProperties: false`, added here: zod strips unknown keys anyway) and every
 * property required. A schema with optional properties or open records goes non-strict.
 */
export function responseFormatFor(schema: z.ZodType): ResponseFormat {
  const plain = zodToJsonSchema(schema);
  const closed = closeObjects(plain);
  return closed === undefined
    ? { type: "json_schema", name: NATIVE_SCHEMA_NAME, schema: plain, strict: false }
    : { type: "json_schema", name: NATIVE_SCHEMA_NAME, schema: closed, strict: true };
}

/** A copy with every object closed, or undefined when an object cannot be (optional keys, records). */
function closeObjects(node: unknown): JsonSchema | undefined {
  if (Array.isArray(node)) {
    const items = node.map((item) => (isSchemaLike(item) ? closeObjects(item) : item));
    return items.includes(undefined) ? undefined : (items as unknown as JsonSchema);
  }
  if (!isSchemaLike(node)) return node as JsonSchema;
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(node)) {
    if (key === "properties" && isSchemaLike(value)) {
      const props: Record<string, unknown> = {};
      for (const [name, prop] of Object.entries(value)) {
        const closed = closeObjects(prop);
        if (closed === undefined) return undefined;
        props[name] = closed;
      }
      out.properties = props;
    } else if (typeof value === "object" && value !== null) {
      const closed = closeObjects(value);
      if (closed === undefined) return undefined;
      out[key] = closed;
    } else out[key] = value;
  }
  if (node.type === "object") {
    const keys = Object.keys((node.properties as Record<string, unknown> | undefined) ?? {});
    const required = new Set((node.required as string[] | undefined) ?? []);
    if (node.additionalProperties !== undefined && node.additionalProperties !== false) return undefined;
    if (keys.length === 0 || keys.some((k) => !required.has(k))) return undefined;
    out.additionalProperties = false;
  }
  return out;
}

function isSchemaLike(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

export type NativeAnswer = { ok: true; value: unknown } | { ok: false; error: string };

/**
 * Parses and validates the answer text of a call made with `responseFormat`: the text blocks
 * (refusals aside), joined. The error names the bad field, for the hint the model reads.
 */
export function parseNativeAnswer(schema: z.ZodType, content: readonly ContentBlock[]): NativeAnswer {
  const text = content
    .map((block) => (block.type === "text" && block.refusal !== true ? block.text : ""))
    .join("")
    .trim();
  if (text === "") return { ok: false, error: "the answer was empty" };
  let json: unknown;
  try {
    json = JSON.parse(stripFence(text));
  } catch (error) {
    return { ok: false, error: `the answer is not valid JSON (${(error as Error).message})` };
  }
  const result = schema.safeParse(json);
  return result.success
    ? { ok: true, value: result.data }
    : { ok: false, error: describeZodError(result.error) };
}

/** A ```json fence some servers put around constrained output (Ollama, compatible servers). */
function stripFence(text: string): string {
  const fenced = /^```(?:json)?\s*\n([\s\S]*?)\n?```$/.exec(text);
  return fenced ? fenced[1]! : text;
}

/** The hint after a text answer on a call without `responseFormat`: the next call asks for the JSON. */
export const NATIVE_FINAL_HINT =
  "Now give your final answer as JSON that fits the requested schema, and nothing else.";

/** The hint after an answer that did not fit: what was wrong, so the model can correct it. */
export function nativeRetryHint(error: string): string {
  return `Your answer did not fit the schema: ${error}. Answer again with only JSON that fits it.`;
}
