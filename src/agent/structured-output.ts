import type { z } from "zod";
import { functionTool, type Tool } from "../tool/index.js";

export const STRUCTURED_OUTPUT_TOOL = "generate_structured_output";

/** The injected tool the model calls with the final answer; its arguments are the structured output. */
export function structuredOutputTool(schema: z.ZodType): Tool {
  return functionTool({
    name: STRUCTURED_OUTPUT_TOOL,
    description:
      "Give your final answer by calling this tool with arguments that fit its schema. Call it once, when you are done.",
    input: schema,
    readOnly: true,
    concurrencySafe: false,
    execute: () => "Structured output recorded.",
  });
}

export const STRUCTURED_OUTPUT_HINT = `Answer by calling the ${STRUCTURED_OUTPUT_TOOL} tool with your final answer.`;
