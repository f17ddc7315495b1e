import { describe, expect, it } from "vitest";
import { sanitizeGeminiSchema } from "../../src/model/gemini/gemini-schema.js";

describe("sanitizeGeminiSchema", () => {
  it("drops keys Gemini rejects ($schema, additionalProperties, unknown formats) at every depth", () => {
    const schema = {
      $schema: "http://json-schema.org/draft-07/schema#",
      type: "object",
      additionalProperties: false,
      properties: {
        path: { type: "string", format: "uri", minLength: 1, description: "a path" },
        when: { type: "string", format: "date-time" },
        edits: {
          type: "array",
          minItems: 1,
          items: {
            type: "object",
            additionalProperties: false,
            properties: {
              old: { type: "string" },
              count: { type: "integer", format: "int32", exclusiveMinimum: 0 },
            },
            required: ["old", "missing"],
          },
        },
      },
      required: ["path"],
    };
    expect(sanitizeGeminiSchema(schema)).toEqual({
      type: "OBJECT",
      properties: {
        path: { type: "STRING", minLength: "1", description: "a path" },
        when: { type: "STRING", format: "date-time" },
        edits: {
          type: "ARRAY",
          minItems: "1",
          items: {
            type: "OBJECT",
            properties: { old: { type: "STRING" }, count: { type: "INTEGER", format: "int32", minimum: 0 } },
            required: ["old"],
          },
        },
      },
      required: ["path"],
    });
  });

  it("turns nullable unions into nullable, other unions into anyOf branches that keep their own keys", () => {
    const out = sanitizeGeminiSchema({
      type: "object",
      properties: {
        maybe: { type: ["string", "null"] },
        either: { anyOf: [{ type: "string" }, { type: "number" }, { type: "null" }] },
        list: { type: ["string", "array"], items: { type: "string" } },
        tag: { const: "fixed" },
        level: { enum: [1, 2, 3], description: "level" },
        opts: { type: "object", properties: { a: { type: "boolean" } }, oneOf: [{ required: ["a"] }] },
      },
    });
    expect(out?.properties).toEqual({
      maybe: { type: "STRING", nullable: true },
      either: { nullable: true, anyOf: [{ type: "STRING" }, { type: "NUMBER" }] },
      list: { anyOf: [{ type: "STRING" }, { type: "ARRAY", items: { type: "STRING" } }] },
      tag: { type: "STRING", enum: ["fixed"], format: "enum" },
      level: { description: "level (one of: 1, 2, 3)" },
      opts: { type: "OBJECT", properties: { a: { type: "BOOLEAN" } } },
    });
  });

  it("inlines $ref definitions and stops at recursion", () => {
    const out = sanitizeGeminiSchema({
      type: "object",
      $defs: {
        node: { type: "object", properties: { name: { type: "string" }, child: { $ref: "#/$defs/node" } } },
      },
      properties: { root: { $ref: "#/$defs/node", description: "the root" } },
    });
    const root = out?.properties?.root;
    expect(root).toMatchObject({
      type: "OBJECT",
      description: "the root",
      properties: { name: { type: "STRING" } },
    });
    let depth = 0;
    let node = root;
    while (node?.properties?.child) {
      node = node.properties.child;
      depth++;
    }
    expect(depth).toBeGreaterThan(1);
    expect(depth).toBeLessThan(12);
  });

  it("gives arrays without items an items schema and omits parameters for tools without arguments", () => {
    expect(
      sanitizeGeminiSchema({ type: "object", properties: { tags: { type: "array" } } })?.properties?.tags,
    ).toEqual({
      type: "ARRAY",
      items: { type: "STRING" },
    });
    expect(sanitizeGeminiSchema({ type: "object", properties: {} })).toBeUndefined();
    expect(sanitizeGeminiSchema({ type: "object", additionalProperties: false })).toBeUndefined();
  });
});
