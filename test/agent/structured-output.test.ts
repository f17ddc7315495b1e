import { describe, expect, expectTypeOf, it } from "vitest";
import { z } from "zod";
import { Agent } from "../../src/agent/index.js";
import { blocksOf, userMsg } from "../../src/message/index.js";
import { ScriptedModel } from "../../src/testing/index.js";

const Person = z.object({ name: z.string(), age: z.number().int() });

describe("structured output", () => {
  it("injects generate_structured_output and returns the typed value on the final Msg", async () => {
    const model = new ScriptedModel([
      { toolCalls: [{ name: "generate_structured_output", input: { name: "Ada", age: 36 } }] },
    ]);
    const agent = new Agent({ name: "a", model });
    const reply = await agent.reply(userMsg("who?"), { structuredOutput: Person });
    expect(reply.structuredOutput).toEqual({ name: "Ada", age: 36 });
    expect(reply.finishedReason).toBe("completed");
    expectTypeOf(reply.structuredOutput).toEqualTypeOf<{ name: string; age: number } | undefined>();
    const tools = model.calls[0]!.options.tools!;
    expect(tools.map((t) => t.name)).toContain("generate_structured_output");
    expect(tools[0]!.parameters).toMatchObject({ type: "object", required: ["name", "age"] });
  });

  it("a schema violation goes back to the model as an error, and it corrects itself", async () => {
    const model = new ScriptedModel([
      { toolCalls: [{ name: "generate_structured_output", input: { name: "Ada", age: "old" } }] },
      { toolCalls: [{ name: "generate_structured_output", input: { name: "Ada", age: 36 } }] },
    ]);
    const agent = new Agent({ name: "a", model });
    const reply = await agent.reply(userMsg("who?"), { structuredOutput: Person });
    const results = blocksOf(reply, "tool_result");
    expect(results[0]!.state).toBe("error");
    expect(results[0]!.output).toContain("age");
    expect(reply.structuredOutput).toEqual({ name: "Ada", age: 36 });
  });

  it("a text answer gets a hint, and the tool is forced on the last iteration", async () => {
    const model = new ScriptedModel([
      { text: "Ada, 36" },
      { text: "I said Ada, 36" },
      { toolCalls: [{ name: "generate_structured_output", input: { name: "Ada", age: 36 } }] },
    ]);
    const agent = new Agent({ name: "a", model, maxIters: 3 });
    const reply = await agent.reply(userMsg("who?"), { structuredOutput: Person });
    expect(blocksOf(reply, "hint")).toHaveLength(2);
    expect(model.calls.map((c) => c.options.toolChoice)).toEqual([
      undefined,
      undefined,
      { name: "generate_structured_output" },
    ]);
    expect(reply.structuredOutput).toEqual({ name: "Ada", age: 36 });
  });
});
