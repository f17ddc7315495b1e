import { isDeepStrictEqual } from "node:util";
import type { ValidateFunction } from "ajv";
import { show } from "../divergence.js";
import type { Scorer, ScorerOptions } from "./scorer.js";

/** Passes when the structured output deep-equals `expected`. */
export function outputEquals(expected: unknown, options: ScorerOptions = {}): Scorer {
  return {
    name: "output_equals",
    ...options,
    score({ run }) {
      const actual = run.trajectory.structuredOutput;
      return isDeepStrictEqual(actual, expected)
        ? { value: 1, reason: "the structured output equals the expected value" }
        : { value: 0, reason: `expected ${show(expected)}, got ${show(actual)}` };
    },
  };
}

/** A zod schema (anything with safeParse) or a JSON Schema object. */
export type OutputSchema =
  | { safeParse(value: unknown): { success: boolean; error?: { message: string } } }
  | Record<string, unknown>;

const isZod = (schema: OutputSchema): schema is Extract<OutputSchema, { safeParse: unknown }> =>
  typeof (schema as { safeParse?: unknown }).safeParse === "function";

/** Compiles a JSON Schema with ajv, loaded when first needed (as the JSON-schema tools do). */
async function compileJsonSchema(schema: Record<string, unknown>): Promise<ValidateFunction> {
  const module = (await import("ajv")) as unknown as {
    default: new (options: object) => { compile(schema: object): ValidateFunction };
  };
  return new module.default({ allErrors: false, strict: false, logger: false }).compile(schema);
}

/** Passes when the structured output fits the schema (zod, or JSON Schema checked with ajv). */
export function outputFitsSchema(schema: OutputSchema, options: ScorerOptions = {}): Scorer {
  let validate: Promise<ValidateFunction> | undefined;
  const check = async (value: unknown): Promise<string | undefined> => {
    if (isZod(schema)) {
      const result = schema.safeParse(value);
      return result.success ? undefined : (result.error?.message ?? "does not fit");
    }
    validate ??= compileJsonSchema(schema);
    const fn = await validate;
    return fn(value)
      ? undefined
      : (fn.errors ?? []).map((e) => `${e.instancePath || "(root)"} ${e.message}`).join("; ");
  };
  return {
    name: "output_schema",
    ...options,
    async score({ run }) {
      const actual = run.trajectory.structuredOutput;
      if (actual === undefined) return { value: 0, reason: "the run produced no structured output" };
      const problem = await check(actual);
      return problem === undefined
        ? { value: 1, reason: "the structured output fits the schema" }
        : { value: 0, reason: `the structured output does not fit the schema: ${problem}` };
    },
  };
}
