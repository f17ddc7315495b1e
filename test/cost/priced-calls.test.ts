import { describe, expect, it } from "vitest";
import { Agent, SUMMARY_INSTRUCTIONS } from "../../src/agent/index.js";
import { type AgentEvent, applyEvent, type ModelCallEndEvent } from "../../src/event/index.js";
import { type Msg, textOf, userMsg } from "../../src/message/index.js";
import { pricingTable } from "../../src/model/pricing/index.js";
import { subAgentTool } from "../../src/multiagent/index.js";
import { ScriptedModel, type ScriptedStep } from "../../src/testing/index.js";

/** Model calls besides the answer's own: a context compression's summary call and a sub-agent's calls. */

// $1 per million input tokens, $2 per million output tokens, for every scripted model.
const pricing = pricingTable({
  builtin: false,
  prices: { "scripted:*": { input: 1, output: 2, asOf: "2026-01-01" } },
});
const usd = (input: number, output: number) => (input * 1 + output * 2) / 1_000_000;
const callEnds = (events: AgentEvent[]) =>
  events.filter((e): e is ModelCallEndEvent => e.type === "MODEL_CALL_END");

async function collect(stream: AsyncIterable<AgentEvent>): Promise<{ events: AgentEvent[]; folded: Msg }> {
  const events: AgentEvent[] = [];
  let folded: Msg | undefined;
  for await (const event of stream) {
    events.push(event);
    // The reply's own events (a sub-run's events have their own replyId).
    if (folded === undefined || event.replyId === folded.id) folded = applyEvent(folded, event);
  }
  return { events, folded: folded as Msg };
}

describe("priced calls beyond the answer", () => {
  it("a context compression's summary call is priced and counted in the reply's cost", async () => {
    const step: ScriptedStep = (messages) =>
      textOf(messages[0] as Msg).startsWith(SUMMARY_INSTRUCTIONS.slice(0, 40))
        ? { text: "## Task overview\nold", usage: { inputTokens: 50, outputTokens: 7 } }
        : { text: "answer", usage: { inputTokens: 30, outputTokens: 4 } };
    const model = new ScriptedModel([step, step], { contextSize: 3000 });
    const agent = new Agent({
      name: "a",
      model,
      pricing,
      context: { triggerRatio: 0.05, reserveRatio: 0.01 },
    });
    agent.observe([userMsg("old question"), userMsg(`old detail ${"x ".repeat(600)}`)]);
    const { events, folded } = await collect(agent.replyStream(userMsg("new question")));
    const [summary, answer] = callEnds(events);
    expect(summary).toMatchObject({
      metadata: { purpose: "context_compression" },
      cost: { usd: usd(50, 7) },
    });
    expect(answer?.cost?.usd).toBe(usd(30, 4));
    const stored = agent.state.context.at(-1) as Msg;
    expect(stored.cost?.usd).toBeCloseTo(usd(80, 11), 15);
    expect(folded).toEqual(stored);
  });

  it("a sub-agent's cost rolls up into its parent's reply with its usage", async () => {
    const researcher = new Agent({
      name: "researcher",
      model: new ScriptedModel([
        { text: "A pug is a small dog.", usage: { inputTokens: 20, outputTokens: 7 } },
      ]),
      pricing,
    });
    const main = new Agent({
      name: "main",
      model: new ScriptedModel([
        {
          toolCalls: [{ id: "call_r", name: "researcher", input: { prompt: "What is a pug?" } }],
          usage: { inputTokens: 100, outputTokens: 5 },
        },
        { text: "It is a small dog.", usage: { inputTokens: 200, outputTokens: 6 } },
      ]),
      toolkit: [subAgentTool(researcher, { description: "Researches a question" })],
      pricing,
    });
    const { events, folded } = await collect(main.replyStream(userMsg("Tell me about pugs")));
    const rollUp = callEnds(events).find((e) => e.metadata?.subRunUsage === true);
    expect(rollUp?.cost?.usd).toBe(usd(20, 7));
    const stored = main.state.context.at(-1) as Msg;
    expect(stored.cost?.usd).toBeCloseTo(usd(320, 18), 15);
    expect(folded).toEqual(stored);
  });
});
