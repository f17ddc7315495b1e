import { describe, expect, it } from "vitest";
import { z } from "zod";
import { Agent, type Middleware } from "../../src/agent/index.js";
import { ScriptedModel } from "../../src/testing/index.js";
import { functionTool, type Tool } from "../../src/tool/index.js";

const ran: unknown[] = [];
const refund = functionTool({
  name: "refund",
  description: "Refunds an order",
  input: z.object({ id: z.string(), amount: z.number() }),
  execute: async function* (input) {
    ran.push(input);
    yield "refunding… ";
    yield `refunded $${input.amount}`;
  },
}) as Tool;

/** A guardrail as middleware: refunds over $100 are refused, whoever approves them. */
const guardrail: Middleware = {
  name: "guardrail",
  onPermission: (request, _ctx, next) =>
    (request.input as { amount: number }).amount > 100
      ? Promise.resolve({ behavior: "deny", reason: "refunds over $100 need a manager" })
      : next(request),
};

const agent = () =>
  new Agent({ name: "clerk", model: new ScriptedModel([]), toolkit: [refund], middlewares: [guardrail] });

describe("Agent.tryTool: a tool run by hand through the one gate", () => {
  it("an ask does not run until approved; approved, it runs and its streamed output is collected", async () => {
    ran.length = 0;
    const clerk = agent();
    const state = clerk.createState("s1");
    const asked = await clerk.tryTool("refund", { id: "A1", amount: 30 }, state);
    expect(asked).toMatchObject({ ran: false, decision: { behavior: "ask" } });
    expect(ran).toEqual([]);
    const approved = await clerk.tryTool("refund", { id: "A1", amount: 30 }, state, { approved: true });
    expect(approved).toMatchObject({
      ran: true,
      approvedBy: "person",
      result: { state: "success", output: "refunding… refunded $30" },
    });
    expect(ran).toEqual([{ id: "A1", amount: 30 }]);
  });

  it("the middleware's onPermission hooks decide as in a reply: a deny never runs, approved or not", async () => {
    ran.length = 0;
    const clerk = agent();
    const denied = await clerk.tryTool("refund", { id: "A1", amount: 500 }, clerk.createState("s2"), {
      approved: true,
    });
    expect(denied).toEqual({
      tool: "refund",
      decision: { behavior: "deny", reason: "refunds over $100 need a manager" },
      ran: false,
    });
    expect(ran).toEqual([]);
  });

  it("bypass mode allows it; the session state is left as it was", async () => {
    const clerk = agent();
    const state = clerk.createState("s3");
    state.permission.mode = "bypass";
    const before = structuredClone(state);
    const trial = await clerk.tryTool("refund", { id: "A2", amount: 5 }, state);
    expect(trial).toMatchObject({ ran: true, approvedBy: "engine", decision: { behavior: "allow" } });
    expect(state).toEqual(before);
  });

  it("an unknown tool and arguments the schema refuses are errors naming them", async () => {
    const clerk = agent();
    await expect(clerk.tryTool("drop", {}, clerk.createState("s4"))).rejects.toThrow(
      'the agent has no tool "drop"; its tools: refund',
    );
    await expect(clerk.tryTool("refund", { id: "A1" }, clerk.createState("s5"))).rejects.toThrow(
      /input: invalid arguments for refund: .*amount/,
    );
  });
});
