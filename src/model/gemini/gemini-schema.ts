import type { JsonSchema } from "../types.js";

/** The OpenAPI-3.0 subset Gemini function declarations accept (REST field names, SDK value types). */
export interface GeminiSchema {
  type?: "STRING" | "NUMBER" | "INTEGER" | "BOOLEAN" | "ARRAY" | "OBJECT";
  format?: string;
  title?: string;
  description?: string;
  nullable?: boolean;
  enum?: string[];
  default?: unknown;
  example?: unknown;
  properties?: Record<string, GeminiSchema>;
  propertyOrdering?: string[];
  required?: string[];
  items?: GeminiSchema;
  anyOf?: GeminiSchema[];
  minimum?: number;
  maximum?: number;
  minLength?: string;
  maxLength?: string;
  minItems?: string;
  maxItems?: string;
  minProperties?: string;
  maxProperties?: string;
  pattern?: string;
}

const TYPES: Record<string, GeminiSchema["type"]> = {
  string: "STRING",
  number: "NUMBER",
  integer: "INTEGER",
  boolean: "BOOLEAN",
  array: "ARRAY",
  object: "OBJECT",
};

/** Formats Gemini accepts, per type; any other format is dropped. */
const FORMATS: Record<string, ReadonlySet<string>> = {
  STRING: new Set(["enum", "date-time"]),
  NUMBER: new Set(["float", "double"]),
  INTEGER: new Set(["int32", "int64"]),
};

const COUNTS = ["minLength", "maxLength", "minItems", "maxItems", "minProperties", "maxProperties"] as const;
const MAX_REF_DEPTH = 8;

type Json = Record<string, unknown>;

const isObject = (value: unknown): value is Json =>
  value !== null && typeof value === "object" && !Array.isArray(value);

class Sanitiser {
  private readonly defs: Json;
  constructor(root: Json) {
    this.defs = {
      ...(isObject(root.definitions) ? root.definitions : {}),
      ...(isObject(root.$defs) ? root.$defs : {}),
    };
  }

  schema(input: unknown, depth: number): GeminiSchema {
    if (!isObject(input)) return {};
    const source = this.resolve(input, depth);
    if (source === undefined) return { type: "OBJECT", description: "(recursive structure)" };
    if (source !== input) return this.schema(source, depth + 1);
    const out: GeminiSchema = {};
    this.copyType(source, out, depth);
    if (typeof source.title === "string") out.title = source.title;
    if (typeof source.description === "string") out.description = source.description;
    if (source.nullable === true) out.nullable = true;
    this.copyEnum(source, out);
    if (typeof source.format === "string" && out.type && FORMATS[out.type]?.has(source.format))
      out.format = source.format;
    if ("default" in source) out.default = source.default;
    if (Array.isArray(source.examples) && source.examples.length > 0) out.example = source.examples[0];
    else if ("example" in source) out.example = source.example;
    if (typeof source.minimum === "number") out.minimum = source.minimum;
    else if (typeof source.exclusiveMinimum === "number") out.minimum = source.exclusiveMinimum;
    if (typeof source.maximum === "number") out.maximum = source.maximum;
    else if (typeof source.exclusiveMaximum === "number") out.maximum = source.exclusiveMaximum;
    for (const key of COUNTS) if (typeof source[key] === "number") out[key] = String(source[key]);
    if (typeof source.pattern === "string") out.pattern = source.pattern;
    if (out.anyOf !== undefined) return out;
    this.copyObject(source, out, depth);
    if (out.type === "ARRAY" || (out.type === undefined && source.items !== undefined)) {
      const items = Array.isArray(source.items) ? source.items[0] : source.items;
      out.type = "ARRAY";
      // Gemini requires `items` on every ARRAY.
      out.items = items === undefined ? { type: "STRING" } : this.schema(items, depth + 1);
    }
    return out;
  }

  /** Follows a local `$ref`; undefined when refs nest deeper than we unfold (recursion). */
  private resolve(input: Json, depth: number): Json | undefined {
    if (typeof input.$ref !== "string") return input;
    if (depth > MAX_REF_DEPTH) return undefined;
    const name = input.$ref.replace(/^#\/(\$defs|definitions)\//, "");
    const target = this.defs[name];
    if (!isObject(target)) return {};
    const { $ref: _ref, ...siblings } = input;
    return { ...target, ...siblings };
  }

  /** Type unions become `nullable` or `anyOf` (each branch keeps the keys of its own type). */
  private copyType(source: Json, out: GeminiSchema, depth: number): void {
    const types = (Array.isArray(source.type) ? source.type : [source.type]).filter(
      (t) => typeof t === "string",
    );
    if (types.includes("null")) out.nullable = true;
    const real = types.filter((t) => t !== "null");
    if (real.length === 1) out.type = TYPES[real[0] as string];
    if (Array.isArray(source.allOf) && source.allOf.length > 0)
      Object.assign(out, this.mergeAll(source.allOf, depth));
    const { anyOf: _a, oneOf: _o, type: _t, ...rest } = source;
    const variants: unknown[] | undefined =
      real.length > 1
        ? real.map((type) => ({ ...rest, type }))
        : Array.isArray(source.anyOf)
          ? source.anyOf
          : Array.isArray(source.oneOf)
            ? source.oneOf
            : undefined;
    if (variants === undefined) return;
    const kept = variants.filter((v) => !(isObject(v) && v.type === "null"));
    if (kept.length < variants.length) out.nullable = true;
    const nullable = out.nullable;
    if (kept.length === 1) Object.assign(out, this.schema(kept[0], depth + 1), nullable ? { nullable } : {});
    else if (kept.length > 1) out.anyOf = kept.map((v) => this.schema(v, depth + 1));
  }

  /** allOf: object parts merged (properties and required united), the rest taken as is. */
  private mergeAll(parts: unknown[], depth: number): GeminiSchema {
    const merged: GeminiSchema = {};
    for (const part of parts) {
      const schema = this.schema(part, depth + 1);
      const properties = { ...merged.properties, ...schema.properties };
      const required = [...(merged.required ?? []), ...(schema.required ?? [])];
      Object.assign(merged, schema);
      if (Object.keys(properties).length > 0) merged.properties = properties;
      if (required.length > 0) merged.required = required;
    }
    return merged;
  }

  private copyEnum(source: Json, out: GeminiSchema): void {
    const values = "const" in source ? [source.const] : Array.isArray(source.enum) ? source.enum : undefined;
    if (values === undefined) return;
    if (values.every((v) => typeof v === "string")) {
      out.enum = values as string[];
      out.type ??= "STRING";
      if (out.type === "STRING") out.format = "enum";
      else delete out.enum;
      return;
    }
    // Gemini enums are strings only: other values are listed in the description instead.
    const list = `one of: ${values.map((v) => JSON.stringify(v)).join(", ")}`;
    out.description = out.description ? `${out.description} (${list})` : list;
  }

  private copyObject(source: Json, out: GeminiSchema, depth: number): void {
    if (!isObject(source.properties)) return;
    const properties: Record<string, GeminiSchema> = {};
    for (const [key, value] of Object.entries(source.properties))
      properties[key] = this.schema(value, depth + 1);
    if (Object.keys(properties).length === 0) return;
    out.type ??= "OBJECT";
    // `properties` and `required` are only allowed on OBJECT.
    if (out.type !== "OBJECT") return;
    out.properties = properties;
    if (Array.isArray(source.required)) {
      const required = source.required.filter(
        (name): name is string => typeof name === "string" && name in properties,
      );
      if (required.length > 0) out.required = required;
    }
  }
}

/**
 * JSON Schema → the schema subset Gemini's function declarations accept: `$ref`s inlined,
 * `$schema`, `additionalProperties` and other unknown keys dropped, type unions turned into
 * `nullable`/`anyOf`, `const` and string enums kept (other enums described), unsupported formats
 * dropped, `required` limited to declared properties. Undefined when the tool takes no arguments
 * (Gemini rejects an OBJECT with no properties).
 */
export function sanitizeGeminiSchema(schema: JsonSchema): GeminiSchema | undefined {
  const out = new Sanitiser(schema).schema(schema, 0);
  if (out.properties === undefined) return undefined;
  out.type = "OBJECT";
  return out;
}
