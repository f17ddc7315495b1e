import { describe, expect, it } from "vitest";
import { Agent } from "../../src/agent/index.js";
import type { AgentEvent } from "../../src/event/index.js";
import { userMsg } from "../../src/message/index.js";
import { budgetMiddleware } from "../../src/middleware/index.js";
import { pricingTable } from "../../src/model/pricing/index.js";
import { ScriptedModel, type ScriptedTurn } from "../../src/testing/index.js";
import { collect, weather } from "../agent/helpers.js";

// $1 per million input tokens and $3 per million output tokens: each call below costs
// (100_000 * 1 + 10_000 * 3) / 1e6 = $0.13.
const pricing = pricingTable({
  builtin: false,
  prices: { "scripted:*": { input: 1, output: 3, asOf: "2026-01-01" } },
});
const call: ScriptedTurn = {
  toolCalls: [{ name: "get_weather", input: { city: "Paris" } }],
  usage: { inputTokens: 100_000, outputTokens: 10_000 },
};
const stopReason = (events: AgentEvent[]) =>
  (events.find((e) => e.type === "REQUEST_STOP") as { reason?: string } | undefined)?.reason;

describe("budgetMiddleware maxUsd (a money budget per reply)", () => {
  it("stops once the reply's calls cost the limit", async () => {
    const model = new ScriptedModel([call, call, call, { text: "done" }]);
    const agent = new Agent({
      name: "a",
      model,
      toolkit: [weather],
      pricing,
      middlewares: [budgetMiddleware({ maxUsd: 0.25 })],
    });
    const events = await collect(agent.replyStream(userMsg("go")));
    // 0.13 after one call, 0.26 after two: checked before the third reasoning step.
    expect(model.calls).toHaveLength(2);
    expect(stopReason(events)).toBe("money budget reached: this reply cost $0.260000 (limit $0.25)");
    expect(events.at(-1)).toMatchObject({ type: "REPLY_END", finishedReason: "stopped" });
  });

  it("under the limit the reply completes (a control)", async () => {
    const model = new ScriptedModel([call, { text: "done" }]);
    const agent = new Agent({
      name: "a",
      model,
      toolkit: [weather],
      pricing,
      middlewares: [budgetMiddleware({ maxUsd: 1 })],
    });
    const events = await collect(agent.replyStream(userMsg("go")));
    expect(events.at(-1)).toMatchObject({ finishedReason: "completed" });
  });

  it("a call without a price stops the reply: the budget cannot be kept blind", async () => {
    const model = new ScriptedModel([call, { text: "done" }]);
    const agent = new Agent({
      name: "a",
      model,
      toolkit: [weather],
      middlewares: [budgetMiddleware({ maxUsd: 1 })],
    });
    const events = await collect(agent.replyStream(userMsg("go")));
    expect(stopReason(events)).toMatch(
      /money budget cannot be kept: no price for scripted.*no pricing table/,
    );
  });

  it("refuses a limit that is not a number ≥ 0", () => {
    expect(() => budgetMiddleware({ maxUsd: -1 })).toThrow(/maxUsd/);
  });
});
