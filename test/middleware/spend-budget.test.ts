import { describe, expect, it } from "vitest";
import { z } from "zod";
import { Agent } from "../../src/agent/index.js";
import { type AgentEvent, type RequireUserConfirmEvent, userConfirmResult } from "../../src/event/index.js";
import { userMsg } from "../../src/message/index.js";
import {
  type BudgetStop,
  readSpend,
  type SpendLimit,
  spendBudgetMiddleware,
} from "../../src/middleware/index.js";
import { pricingTable } from "../../src/model/pricing/index.js";
import { subAgentTool } from "../../src/multiagent/index.js";
import { InMemorySpendCounter } from "../../src/state/index.js";
import { ScriptedModel, type ScriptedTurn } from "../../src/testing/index.js";
import { functionTool } from "../../src/tool/index.js";
import { collect, weather } from "../agent/helpers.js";

// Every scripted call below uses 100 tokens.
const usage = { inputTokens: 80, outputTokens: 20 };
const weatherCall: ScriptedTurn = { toolCalls: [{ name: "get_weather", input: { city: "Paris" } }], usage };
const done: ScriptedTurn = { text: "done", usage };

const stopOf = (events: AgentEvent[]) => {
  const stop = events.find((e) => e.type === "REQUEST_STOP");
  return stop && { reason: stop.reason, budgetStop: stop.metadata?.budgetStop as BudgetStop | undefined };
};
const askOf = (events: AgentEvent[]) =>
  events.find((e): e is RequireUserConfirmEvent => e.type === "REQUIRE_USER_CONFIRM");

function agentWith(
  turns: ScriptedTurn[],
  limits: SpendLimit[],
  counter = new InMemorySpendCounter(),
  user = "ann",
) {
  const model = new ScriptedModel(turns);
  const agent = new Agent({
    name: "a",
    model,
    toolkit: [weather],
    middlewares: [spendBudgetMiddleware({ counter, limits, userOf: () => user })],
  });
  return { agent, model, counter };
}

describe("spendBudgetMiddleware: hard limits", () => {
  it("a reply's token limit stops it before the next model call, with a typed reason", async () => {
    const { agent, model } = agentWith(
      [weatherCall, weatherCall, weatherCall, done],
      [{ scope: "reply", unit: "tokens", hard: 200 }],
    );
    const events = await collect(agent.replyStream(userMsg("go")));
    expect(model.calls).toHaveLength(2);
    expect(stopOf(events)).toEqual({
      reason: "this reply's token budget reached: spent 200 tokens of 200 tokens",
      budgetStop: {
        kind: "hard_limit",
        limit: { scope: "reply", unit: "tokens", hard: 200 },
        spent: 200,
        reason: "this reply's token budget reached: spent 200 tokens of 200 tokens",
      },
    });
    expect(events.at(-1)).toMatchObject({ type: "REPLY_END", finishedReason: "stopped" });
  });

  it("a user's daily money limit holds across sessions; another user is not affected", async () => {
    const counter = new InMemorySpendCounter();
    const pricing = pricingTable({
      builtin: false,
      prices: { "scripted:*": { input: 1, output: 3, asOf: "2026-01-01" } },
    });
    // (80 * 1 + 20 * 3) / 1e6 = $0.00014 per call.
    const limits: SpendLimit[] = [{ scope: "user", period: "day", unit: "usd", hard: 0.00028 }];
    const make = (user: string) => {
      const model = new ScriptedModel([weatherCall, done]);
      const agent = new Agent({
        name: "a",
        model,
        toolkit: [weather],
        pricing,
        middlewares: [spendBudgetMiddleware({ counter, limits, userOf: () => user })],
      });
      return { agent, model };
    };
    const first = make("ann");
    expect((await collect(first.agent.replyStream(userMsg("go")))).at(-1)).toMatchObject({
      finishedReason: "completed",
    });
    const second = make("ann");
    const events = await collect(second.agent.replyStream(userMsg("again")));
    expect(second.model.calls).toHaveLength(0);
    expect(stopOf(events)?.budgetStop).toMatchObject({ kind: "hard_limit", spent: 0.00028 });
    expect(stopOf(events)?.reason).toBe(
      "the user's daily money budget reached: spent $0.000280 of $0.000280",
    );
    const other = make("bob");
    expect((await collect(other.agent.replyStream(userMsg("go")))).at(-1)).toMatchObject({
      finishedReason: "completed",
    });

    const standing = await readSpend(counter, limits, { sessionId: "any", replyId: "any", userId: "ann" });
    expect(standing).toEqual([
      { scope: "user", period: "day", unit: "usd", spent: 0.00028, hard: 0.00028, remaining: 0 },
    ]);
  });

  it("a money limit stops a reply whose model has no price", async () => {
    const { agent } = agentWith([weatherCall, done], [{ scope: "session", unit: "usd", hard: 1 }]);
    const events = await collect(agent.replyStream(userMsg("go")));
    expect(stopOf(events)?.budgetStop).toMatchObject({ kind: "no_price" });
  });
});

describe("spendBudgetMiddleware: soft limits ask", () => {
  const limits: SpendLimit[] = [{ scope: "session", unit: "tokens", soft: 100 }];

  it("past the soft limit the next tool call asks; yes goes on and does not ask again", async () => {
    const { agent, model } = agentWith([weatherCall, weatherCall, weatherCall, done], limits);
    const first = await collect(agent.replyStream(userMsg("go")));
    // Checked before each model call: 100 tokens before the second, whose tool call asks.
    const ask = askOf(first);
    expect(ask?.toolCalls).toHaveLength(1);
    expect(ask?.toolCalls[0]?.reason).toBe(
      "spend budget: this session's token budget reached its soft limit (spent 100 tokens of 100 tokens): go on?",
    );
    expect(first.some((e) => e.type === "DECISION")).toBe(true);
    const call = ask!.toolCalls[0]!;
    const rest = await collect(
      agent.replyStream(
        userConfirmResult({
          replyId: ask!.replyId,
          confirmResults: [
            { confirmed: true, toolCall: { id: call.id, name: call.name, input: call.input } },
          ],
        }),
      ),
    );
    expect(askOf(rest)).toBeUndefined();
    expect(rest.at(-1)).toMatchObject({ type: "REPLY_END", finishedReason: "completed" });
    expect(model.calls).toHaveLength(4);
  });

  it("no stops the reply with the soft limit's reason", async () => {
    const { agent, model } = agentWith([weatherCall, weatherCall, done], limits);
    const ask = askOf(await collect(agent.replyStream(userMsg("go"))))!;
    const call = ask.toolCalls[0]!;
    const rest = await collect(
      agent.replyStream(
        userConfirmResult({
          replyId: ask.replyId,
          confirmResults: [
            { confirmed: false, toolCall: { id: call.id, name: call.name, input: call.input } },
          ],
        }),
      ),
    );
    expect(stopOf(rest)?.budgetStop).toMatchObject({ kind: "soft_limit_declined", limit: limits[0] });
    expect(rest.at(-1)).toMatchObject({ type: "REPLY_END", finishedReason: "stopped" });
    expect(model.calls).toHaveLength(2);
  });

  it("under the soft limit nothing asks (a control)", async () => {
    const { agent } = agentWith(
      [weatherCall, weatherCall, done],
      [{ scope: "session", unit: "tokens", soft: 1000 }],
    );
    const events = await collect(agent.replyStream(userMsg("go")));
    expect(askOf(events)).toBeUndefined();
    expect(events.at(-1)).toMatchObject({ finishedReason: "completed" });
  });
});

describe("spendBudgetMiddleware: a sub-agent tree", () => {
  const lookup = functionTool({
    name: "lookup",
    description: "Looks a word up",
    input: z.object({ word: z.string() }),
    readOnly: true,
    execute: ({ word }) => `${word}: a dog`,
  });
  const lookupCall: ScriptedTurn = { toolCalls: [{ name: "lookup", input: { word: "pug" } }], usage };

  function tree(parentLimits: SpendLimit[]) {
    const counter = new InMemorySpendCounter();
    const budget = (limits: SpendLimit[]) =>
      spendBudgetMiddleware({ counter, limits, reservePerCall: { tokens: 100 } });
    const childModel = new ScriptedModel([...Array(6).fill(lookupCall), done]);
    const researcher = new Agent({
      name: "researcher",
      model: childModel,
      toolkit: [lookup],
      // Its own limit is generous: the parent's remainder is what binds it.
      middlewares: [budget([{ scope: "reply", unit: "tokens", hard: 10_000 }])],
    });
    const parentModel = new ScriptedModel([
      { toolCalls: [{ name: "researcher", input: { prompt: "pugs?" } }], usage },
      done,
    ]);
    const parent = new Agent({
      name: "main",
      model: parentModel,
      toolkit: [subAgentTool(researcher, { description: "Researches" })],
      middlewares: [budget(parentLimits)],
    });
    return { parent, childModel, parentModel, counter };
  }

  it("the sub-agent draws from its parent's remainder and cannot spend past it", async () => {
    const limits: SpendLimit[] = [{ scope: "tree", unit: "tokens", hard: 400 }];
    const { parent, childModel, parentModel, counter } = tree(limits);
    const events = await collect(parent.replyStream(userMsg("tell me about pugs")));
    const parentId = events[0]!.replyId;
    // The parent's call (100) leaves 300: the researcher gets three calls, its fourth is refused.
    expect(childModel.calls).toHaveLength(3);
    const childStop = events.find((e) => e.type === "REQUEST_STOP" && e.replyId !== parentId);
    expect(childStop?.metadata?.budgetStop).toMatchObject({ kind: "hard_limit", limit: limits[0] });
    // The parent's next call is refused too: the tree's limit is spent.
    expect(parentModel.calls).toHaveLength(1);
    expect(stopOf(events.filter((e) => e.replyId === parentId))?.budgetStop).toMatchObject({
      kind: "hard_limit",
    });
    const [spent] = await counter.read([`tokens:tree:${parentId}`]);
    expect(spent).toBe(400);
  });

  it("without a limit on the parent the sub-agent runs its course (a control)", async () => {
    const { parent, childModel } = tree([]);
    const events = await collect(parent.replyStream(userMsg("tell me about pugs")));
    expect(childModel.calls).toHaveLength(7);
    expect(events.at(-1)).toMatchObject({ finishedReason: "completed" });
  });
});
