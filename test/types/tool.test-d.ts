// functionTool infers its input from the zod schema (Tool<I>); execute and parse agree with it.
import { functionTool, type Tool, type ToolCallReturn } from "agentscope";
import { describe, expectTypeOf, it } from "vitest";
import { z } from "zod";

const input = z.object({
  path: z.string(),
  lines: z.number().int().default(20),
  tail: z.boolean().optional(),
});
type Input = { path: string; lines: number; tail?: boolean | undefined };

describe("functionTool", () => {
  it("returns a Tool of the schema's output type", () => {
    const tool = functionTool({ name: "read", description: "Reads a file", input, execute: () => "ok" });
    expectTypeOf(tool).toEqualTypeOf<Tool<Input>>();
    expectTypeOf(tool.parse).returns.toEqualTypeOf<Input>();
    expectTypeOf(tool.call).parameter(0).toEqualTypeOf<Input>();
  });

  it("types execute's input from the schema", () => {
    functionTool({
      name: "read",
      description: "Reads a file",
      input,
      execute(args) {
        expectTypeOf(args).toEqualTypeOf<Input>();
        return args.path;
      },
    });
    functionTool({
      name: "read",
      description: "Reads a file",
      input,
      // @ts-expect-error: `path` is a string, not a number
      execute: (args: { path: number }) => String(args.path),
    });
  });

  it("is assignable where any tool is taken, and execute returns a ToolCallReturn", () => {
    const tool = functionTool({ name: "t", description: "d", input: z.object({}), execute: () => "" });
    expectTypeOf(tool).toExtend<Tool>();
    expectTypeOf<ReturnType<Tool<Input>["call"]>>().toEqualTypeOf<ToolCallReturn>();
  });

  it("needs a schema", () => {
    // @ts-expect-error: `input` is required
    functionTool({ name: "t", description: "d", execute: () => "" });
  });
});
