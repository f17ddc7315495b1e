import { describe, expect, it } from "vitest";
import { Agent } from "../../src/agent/index.js";
import type { CustomEvent } from "../../src/event/index.js";
import { textOf, userMsg } from "../../src/message/index.js";
import { HANDOFF_EVENT, HandoffRouter } from "../../src/multiagent/index.js";
import { parseAgentState } from "../../src/state/index.js";
import { ScriptedModel, type ScriptedStep } from "../../src/testing/index.js";
import { collect } from "./helpers.js";

function desk(triageSteps: ScriptedStep[], billingSteps: ScriptedStep[]) {
  const billingModel = new ScriptedModel(billingSteps, { name: "billing-model" });
  const triage = new Agent({ name: "triage", model: new ScriptedModel(triageSteps) });
  const billing = new Agent({ name: "billing", model: billingModel });
  const router = new HandoffRouter({ agents: [triage, billing] });
  triage.toolkit.register(router.toolFor(triage));
  billing.toolkit.register(router.toolFor(billing));
  return { router, billingModel };
}

describe("handoffs", () => {
  it("a handoff switches the answering agent for the rest of the turn and the next turns, with the history", async () => {
    const { router, billingModel } = desk(
      [{ toolCalls: [{ name: "handoff", input: { to: "billing", reason: "an invoice question" } }] }],
      [{ text: "Your invoice is paid." }, { text: "Anything else about billing?" }],
    );
    const state = router.createState();
    const events = await collect(router.replyStream(userMsg("Is my invoice paid?"), { state }));

    const switched = events.find((e): e is CustomEvent => e.type === "CUSTOM" && e.name === HANDOFF_EVENT);
    expect(switched?.value).toEqual({ from: "triage", to: "billing", reason: "an invoice question" });
    const ends = events
      .filter((e) => e.type === "REPLY_END")
      .map((e) => (e as { finishedReason: string }).finishedReason);
    expect(ends).toEqual(["stopped", "completed"]);
    expect(state.context.map((m) => [m.role, m.name])).toEqual([
      ["user", "user"],
      ["assistant", "triage"],
      ["assistant", "billing"],
    ]);
    expect(textOf(state.context.at(-1)!)).toBe("Your invoice is paid.");
    // Billing saw the whole history: the question and triage's handoff.
    expect(textOf(billingModel.calls[0]!.messages.find((m) => m.role === "user")!)).toBe(
      "Is my invoice paid?",
    );
    expect(router.activeAgent(state)).toBe("billing");

    // After a restart (the state saved and loaded, new agents), billing still answers.
    const restarted = desk([], [{ text: "Anything else about billing?" }]);
    const loaded = parseAgentState(JSON.stringify(state));
    await collect(restarted.router.replyStream(userMsg("thanks"), { state: loaded }));
    expect(loaded.context.at(-1)).toMatchObject({ name: "billing" });
    expect(textOf(loaded.context.at(-1)!)).toBe("Anything else about billing?");
  });

  it("refuses an unknown target (the model reads it) and bad router options", async () => {
    const { router } = desk(
      [
        { toolCalls: [{ id: "h", name: "handoff", input: { to: "nobody" } }] },
        { text: "I will answer myself." },
      ],
      [],
    );
    const state = router.createState();
    await collect(router.replyStream(userMsg("hi"), { state }));
    const reply = state.context.at(-1)!;
    expect(reply.name).toBe("triage");
    expect(JSON.stringify(reply.content)).toContain("invalid arguments for handoff: to");
    expect(router.activeAgent(state)).toBe("triage");

    const solo = new Agent({ name: "solo", model: new ScriptedModel([]) });
    expect(() => new HandoffRouter({ agents: [solo] })).toThrow(/at least two agents/);
    expect(() => new HandoffRouter({ agents: [solo, solo] })).toThrow(/two agents are named "solo"/);
  });
});
