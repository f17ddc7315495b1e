import { describe, expect, it } from "vitest";
import { z } from "zod";
import { ValidationError } from "../../src/message/index.js";
import {
  type FunctionToolConfig,
  functionTool,
  type JsonSchemaToolConfig,
  jsonSchemaTool,
} from "../../src/tool/index.js";

/** What a JavaScript caller can pass: anything. */
const fn = (config: unknown) => () => functionTool(config as FunctionToolConfig<z.ZodType>);
const json = (config: unknown) => jsonSchemaTool(config as JsonSchemaToolConfig);
const base = {
  name: "get_weather",
  description: "Weather",
  input: z.object({ city: z.string() }),
  execute: () => "sunny",
};
const jsonBase = {
  name: "get_weather",
  description: "Weather",
  inputSchema: { type: "object" },
  execute: () => "sunny",
};

describe("tool configs are checked at construction (JavaScript callers)", () => {
  it("functionTool: an unknown key is an error with a did-you-mean, naming the tool", () => {
    expect(fn({ ...base, readonly: true })).toThrow(ValidationError);
    expect(fn({ ...base, readonly: true })).toThrow(
      /functionTool config "get_weather": readonly: unknown option; did you mean "readOnly"\?/,
    );
    expect(fn({ ...base, descripton: "x" })).toThrow(
      /descripton: unknown option; did you mean "description"/,
    );
  });

  it("functionTool: names other APIs use point to the right key", () => {
    const { input: _input, ...noInput } = base;
    expect(fn({ ...noInput, parameters: { type: "object" } })).toThrow(
      /parameters: unknown option; functionTool takes a zod schema as `input`; for a JSON Schema use jsonSchemaTool/,
    );
    const { execute: _execute, ...noExecute } = base;
    expect(fn({ ...noExecute, handler: () => "x" })).toThrow(
      /handler: unknown option; the function is `execute/,
    );
  });

  it("functionTool: wrong types and missing keys are named", () => {
    expect(fn({ ...base, readOnly: "yes" })).toThrow(/readOnly: expected boolean, got string/);
    expect(fn({ ...base, input: { type: "object" } })).toThrow(
      /input: expected a zod schema \(e.g. z.object/,
    );
    expect(fn({ ...base, execute: undefined })).toThrow(/execute: is required/);
    expect(fn({ ...base, name: "get weather" })).toThrow(/name: must be 1-128 letters, digits/);
    expect(fn(undefined)).toThrow(/expected an options object, got undefined/);
  });

  it("functionTool: a valid config with every permission hook still builds", () => {
    const tool = functionTool({
      ...base,
      readOnly: true,
      concurrencySafe: true,
      editsFiles: false,
      pathsOf: () => [],
      suggestRules: () => [],
      matchRule: () => false,
    });
    expect(tool.name).toBe("get_weather");
    expect(tool.parse({ city: "Oslo" })).toEqual({ city: "Oslo" });
  });

  it("jsonSchemaTool: rejects unknown keys and wrong types the same way", async () => {
    await expect(json({ ...jsonBase, readOnlyy: true })).rejects.toThrow(
      /readOnlyy: unknown option; did you mean "readOnly"/,
    );
    const { inputSchema: _schema, ...noSchema } = jsonBase;
    await expect(json({ ...noSchema, input: z.object({}) })).rejects.toThrow(
      /input: unknown option; jsonSchemaTool takes a JSON Schema as `inputSchema`/,
    );
    await expect(json({ ...jsonBase, inputSchema: "object" })).rejects.toThrow(
      /inputSchema: expected a JSON Schema object, got string/,
    );
    await expect(json(jsonBase)).resolves.toMatchObject({ name: "get_weather" });
  });
});
