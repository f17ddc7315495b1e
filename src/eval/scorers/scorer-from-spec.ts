import type { ChatModel } from "../../model/index.js";
import type { ExpectSpec } from "../case.js";
import { EvalCaseError } from "../eval-error.js";
import { type RunLimits, type TokenPrices, withinLimits } from "./limits-scorer.js";
import { outputEquals, outputFitsSchema } from "./output-scorers.js";
import { type LabelledExample, rubricScorer } from "./rubric-scorer.js";
import type { Scorer, ScorerOptions } from "./scorer.js";
import { textContains, textMatches } from "./text-scorers.js";
import { noDeniedCall, toolCalled, toolNotCalled } from "./tool-scorers.js";
import { followsRecording, trajectoryMatches } from "./trajectory-scorers.js";

export interface SpecContext {
  /** The judge for `rubric` expectations. */
  judge?: ChatModel;
  prices?: TokenPrices;
}

type Build = (spec: ExpectSpec, options: ScorerOptions, context: SpecContext) => Scorer;

const str = (spec: ExpectSpec, key: string): string => {
  const value = spec[key];
  if (typeof value !== "string" || value === "")
    throw new EvalCaseError(`expect "${spec.type}": "${key}" must be a non-empty string`);
  return value;
};

const BUILDERS: Record<string, Build> = {
  tool_called: (spec, options) =>
    toolCalled(str(spec, "tool"), {
      ...options,
      ...(spec.args !== undefined ? { args: spec.args as Record<string, unknown> } : {}),
      ...(typeof spec.times === "number" ? { times: spec.times } : {}),
    }),
  tool_not_called: (spec, options) => toolNotCalled(str(spec, "tool"), options),
  no_denied_call: (_spec, options) => noDeniedCall(options),
  text_contains: (spec, options) => {
    const text = spec.text;
    if (typeof text !== "string" && !Array.isArray(text))
      throw new EvalCaseError(`expect "text_contains": "text" must be a string or a list`);
    return textContains(text as string | string[], { ...options, ignoreCase: spec.ignoreCase === true });
  },
  text_matches: (spec, options) =>
    textMatches(str(spec, "pattern"), {
      ...options,
      ...(typeof spec.flags === "string" ? { flags: spec.flags } : {}),
    }),
  output_equals: (spec, options) => outputEquals(spec.value, options),
  output_schema: (spec, options) => {
    if (!spec.schema || typeof spec.schema !== "object")
      throw new EvalCaseError(`expect "output_schema": "schema" must be a JSON Schema object`);
    return outputFitsSchema(spec.schema as Record<string, unknown>, options);
  },
  trajectory: (spec, options) => {
    if (!Array.isArray(spec.sequence))
      throw new EvalCaseError(`expect "trajectory": "sequence" must be a list of tool names, "*" or "**"`);
    return trajectoryMatches(spec.sequence.map(String), options);
  },
  limits: (spec, options, context) => {
    const { type: _type, weight: _weight, name: _name, ...limits } = spec;
    return withinLimits(limits as RunLimits, {
      ...options,
      ...(context.prices ? { prices: context.prices } : {}),
    });
  },
  follows_recording: (_spec, options) => followsRecording(options),
  rubric: (spec, options, context) => {
    if (!context.judge)
      throw new EvalCaseError(`expect "rubric" needs a judge model (runEval's judge option, or --judge)`);
    return rubricScorer({
      ...options,
      model: context.judge,
      rubric: str(spec, "rubric"),
      ...(Array.isArray(spec.examples) ? { examples: spec.examples as LabelledExample[] } : {}),
      ...(typeof spec.threshold === "number" ? { threshold: spec.threshold } : {}),
    });
  },
};

/** The expectation types a dataset may use. */
export const EXPECT_TYPES = Object.keys(BUILDERS);

/** A scorer from an expectation written in a dataset (`{ type: "tool_called", tool: "Read" }`). */
export function scorerFromSpec(spec: ExpectSpec, context: SpecContext = {}): Scorer {
  const build = BUILDERS[spec.type];
  if (!build)
    throw new EvalCaseError(`unknown expectation "${spec.type}"; use one of ${EXPECT_TYPES.join(", ")}`);
  const scorer = build(spec, spec.weight !== undefined ? { weight: spec.weight } : {}, context);
  return spec.name ? { ...scorer, name: spec.name } : scorer;
}
