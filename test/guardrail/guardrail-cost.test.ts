import { describe, expect, it } from "vitest";
import { Agent } from "../../src/agent/index.js";
import { type AgentEvent, applyEvent, type ModelCallEndEvent } from "../../src/event/index.js";
import { moderationGuardrail } from "../../src/guardrail/index.js";
import { type Msg, userMsg } from "../../src/message/index.js";
import { readSpend, spendBudgetMiddleware } from "../../src/middleware/index.js";
import { pricingTable } from "../../src/model/pricing/index.js";
import type { SpendLimit } from "../../src/protocol/index.js";
import { InMemorySpendCounter } from "../../src/state/index.js";
import { ScriptedModel } from "../../src/testing/index.js";

/**
 * Issue 44 item 1, "their cost is counted": a moderation guardrail's judge call is a MODEL_CALL_END
 * (metadata.purpose "guardrail") priced like the main call, so the reply's usage and cost hold both.
 */

const pricing = pricingTable({
  builtin: false,
  prices: {
    "scripted:main": { input: 3, output: 15, asOf: "2026-01-01" },
    "scripted:judge": { input: 0.5, output: 2, asOf: "2026-01-01" },
  },
});
const M = 1_000_000;

describe("a judged guardrail's cost", () => {
  it("the reply's cost is the main call plus the judge call, by hand from the table; the fold matches", async () => {
    const main = new ScriptedModel(
      [{ text: "Boil the pasta.", usage: { inputTokens: 1000, outputTokens: 200 } }],
      {
        name: "main",
      },
    );
    const judge = new ScriptedModel([{ text: "SAFE", usage: { inputTokens: 400, outputTokens: 2 } }], {
      name: "judge",
    });
    const agent = new Agent({
      name: "a",
      model: main,
      pricing,
      guardrails: { output: [moderationGuardrail({ model: judge })] },
    });
    const events: AgentEvent[] = [];
    let folded: Msg | undefined;
    for await (const event of agent.replyStream(userMsg("how do I cook pasta?"))) {
      events.push(event);
      folded = applyEvent(folded, event);
    }
    const stored = agent.state.context.at(-1) as Msg;
    expect(folded).toEqual(stored);
    expect(judge.calls).toHaveLength(1);

    const ends = events.filter((e): e is ModelCallEndEvent => e.type === "MODEL_CALL_END");
    const mainUsd = (1000 * 3 + 200 * 15) / M;
    const judgeUsd = (400 * 0.5 + 2 * 2) / M;
    expect(ends.map((e) => [e.modelName, e.metadata?.purpose])).toEqual([
      ["main", undefined],
      ["judge", "guardrail"],
    ]);
    expect(ends[1]?.cost?.usd).toBeCloseTo(judgeUsd, 12);
    expect(stored.usage).toMatchObject({ inputTokens: 1400, outputTokens: 202 });
    expect(stored.cost?.usd).toBeCloseTo(mainUsd + judgeUsd, 12);
  });

  it("a spend budget charges the judge call too: the user's spend is the main call plus the judge's", async () => {
    const main = new ScriptedModel([{ text: "Boil it.", usage: { inputTokens: 1000, outputTokens: 200 } }], {
      name: "main",
    });
    const judge = new ScriptedModel([{ text: "SAFE", usage: { inputTokens: 400, outputTokens: 2 } }], {
      name: "judge",
    });
    const counter = new InMemorySpendCounter();
    const limits: SpendLimit[] = [
      { scope: "user", unit: "tokens", hard: 1_000_000 },
      { scope: "user", unit: "usd", hard: 10 },
    ];
    const agent = new Agent({
      name: "a",
      model: main,
      pricing,
      guardrails: { output: [moderationGuardrail({ model: judge })] },
      middlewares: [spendBudgetMiddleware({ counter, limits, userOf: () => "ann" })],
    });
    for await (const _ of agent.replyStream(userMsg("how do I cook pasta?"))) {
      // drain
    }
    expect(judge.calls).toHaveLength(1);
    const [tokens, usd] = await readSpend(counter, limits, {
      sessionId: agent.state.sessionId,
      replyId: (agent.state.context.at(-1) as Msg).id,
      userId: "ann",
    });
    expect(tokens?.spent).toBe(1000 + 200 + 400 + 2);
    expect(usd?.spent).toBeCloseTo((1000 * 3 + 200 * 15 + 400 * 0.5 + 2 * 2) / M, 9);
  });
});
