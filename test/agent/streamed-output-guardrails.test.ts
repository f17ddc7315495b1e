import { describe, expect, it } from "vitest";
import { z } from "zod";
import { Agent, type GuardrailOptions } from "../../src/agent/index.js";
import { guardStreamedText } from "../../src/agent/streamed-output.js";
import { type AgentEvent, applyEvent } from "../../src/event/index.js";
import { piiGuardrail } from "../../src/guardrail/index.js";
import { type Msg, textOf, userMsg } from "../../src/message/index.js";
import type { ChatChunk, ChatFinal, ChatModel } from "../../src/model/core.js";
import { estimateTokens } from "../../src/model/core.js";
import { ScriptedModel } from "../../src/testing/index.js";
import { functionTool } from "../../src/tool/index.js";

/**
 * Streamed output guardrails: the answer's text is checked as it streams, with a bounded look-ahead,
 * so a value split across deltas is redacted (or trips) before any of its deltas go out.
 */

/** A model whose one answer streams as exactly these text deltas; `yielded` counts what it gave. */
class DeltaModel implements ChatModel {
  readonly name = "deltas";
  readonly provider = "scripted";
  readonly contextSize = 100_000;
  yielded = 0;
  closed = false;
  constructor(
    private readonly deltas: string[],
    private readonly finalOnly = false,
  ) {}
  countTokens(messages: Msg[]): number {
    return estimateTokens(messages);
  }
  async *stream(): AsyncGenerator<ChatChunk> {
    try {
      const text = this.deltas.join("");
      if (!this.finalOnly) {
        for (const delta of this.deltas) {
          this.yielded += 1;
          yield { type: "text", blockId: "t1", delta };
        }
      }
      const final: ChatFinal = {
        type: "final",
        content: [{ type: "text", id: "t1", text }],
        usage: { inputTokens: 10, outputTokens: 20 },
        stopReason: "stop",
      };
      yield final;
    } finally {
      this.closed = true;
    }
  }
}

/** The reply's events; asserts the invariants: fold == stored Msg, text deltas == stored text. */
async function reply(agent: Agent, text: string) {
  const events: AgentEvent[] = [];
  let folded: Msg | undefined;
  for await (const event of agent.replyStream(userMsg(text))) {
    events.push(event);
    folded = applyEvent(folded, event);
  }
  const stored = agent.state.context.at(-1) as Msg;
  expect(folded).toEqual(stored);
  const deltas = events.flatMap((e) => (e.type === "TEXT_BLOCK_DELTA" ? [e.delta] : []));
  expect(deltas.join("")).toBe(stored.content.flatMap((b) => (b.type === "text" ? [b.text] : [])).join(""));
  return { events, deltas, msg: stored };
}

const agentWith = (model: ChatModel, guardrails: GuardrailOptions, toolkit = [] as never[]) =>
  new Agent({ name: "a", model, guardrails, toolkit, permission: { mode: "bypass" } });
const stopOf = (events: AgentEvent[]) => events.find((e) => e.type === "REQUEST_STOP");

describe("streamed output guardrails", () => {
  it("redact an email split across 3 deltas before any of it goes out", async () => {
    const email = "jane.doe@example.com";
    const model = new DeltaModel(["Write to jane.d", "oe@exam", "ple.com today, please."]);
    const { deltas, msg } = await reply(
      agentWith(model, { output: [piiGuardrail({ streamed: true })] }),
      "hi",
    );
    for (const delta of deltas) expect(delta).not.toContain("jane");
    expect(deltas.join("")).not.toContain(email);
    expect(textOf(msg)).toBe("Write to [REDACTED:email] today, please.");
    expect(msg.finishedReason).toBe("completed");
  });

  it("redact a card number split across 3 deltas of a long answer, with a small look-ahead", async () => {
    const card = "4111 1111 1111 1111";
    const before = "The order went through. ".repeat(5);
    const model = new DeltaModel([`${before}Card: 4111 11`, "11 1111 1", `111, ${"thanks. ".repeat(10)}`]);
    const { deltas, msg } = await reply(
      agentWith(model, { output: [piiGuardrail({ streamed: true })], lookAhead: 24 }),
      "pay",
    );
    expect(deltas.length).toBeGreaterThan(1); // text went out before the block ended
    for (const delta of deltas) expect(delta).not.toMatch(/4111|1111/);
    expect(textOf(msg)).toBe(`${before}Card: [REDACTED:card_number], ${"thanks. ".repeat(10)}`);
    expect(textOf(msg)).not.toContain(card);
  });

  it("a trip mid-stream ends the reply with REQUEST_STOP and the typed trip; the rest is never read", async () => {
    const model = new DeltaModel([
      "Sure. Call me at +1 (415) ",
      "555-2671 any time",
      " after nine.",
      ...Array.from({ length: 50 }, () => " More text that should never be read."),
    ]);
    const agent = agentWith(model, {
      output: [piiGuardrail({ action: "trip", streamed: true })],
      lookAhead: 16,
    });
    const { events, deltas, msg } = await reply(agent, "number?");
    expect(deltas.join("")).not.toContain("555");
    expect(stopOf(events)).toMatchObject({
      reason: 'blocked by guardrail "pii" (pii): found phone',
      metadata: { guardrailTrip: { guardrail: "pii", stage: "output", kind: "pii", reason: "found phone" } },
    });
    expect(msg.finishedReason).toBe("stopped");
    expect(model.yielded).toBeLessThan(10);
    expect(model.closed).toBe(true);
    // The call cut short still counts: an estimate of what was sent and received.
    const end = events.find((e) => e.type === "MODEL_CALL_END");
    expect(end).toMatchObject({ modelName: "deltas", stopReason: "other" });
    expect((end as { outputTokens: number }).outputTokens).toBeGreaterThan(0);
  });

  it("leave ordinary numbers alone and stream them unchanged (a false-positive control)", async () => {
    const text =
      "Version 2.10.3 shipped on 2024-05-17 at 10:30; order #12345678 costs $1,234.56 and the host is 10.0.0.12.";
    const pieces = text.match(/.{1,7}/gs) ?? [];
    const { deltas, msg, events } = await reply(
      agentWith(new DeltaModel(pieces), { output: [piiGuardrail({ streamed: true })], lookAhead: 16 }),
      "status",
    );
    expect(textOf(msg)).toBe(text);
    expect(deltas.length).toBeGreaterThan(1);
    expect(stopOf(events)).toBeUndefined();
    expect(msg.finishedReason).toBe("completed");
  });

  it("check a text block the provider sent only in its final chunk", async () => {
    const model = new DeltaModel(["Mail me: bob@example.org"], true);
    const { msg } = await reply(agentWith(model, { output: [piiGuardrail({ streamed: true })] }), "hi");
    expect(textOf(msg)).toBe("Mail me: [REDACTED:email]");
  });

  it("release the held text before a tool call, so the blocks keep their order", async () => {
    const lookup = functionTool({
      name: "lookup",
      description: "Looks up",
      input: z.object({}),
      readOnly: true,
      execute: () => "found",
    });
    const model = new ScriptedModel([
      { text: "Let me look that up for you.", toolCalls: [{ name: "lookup", input: {} }] },
      { text: "It is at ann@example.net now." },
    ]);
    const agent = new Agent({
      name: "a",
      model,
      toolkit: [lookup],
      guardrails: { output: [piiGuardrail({ streamed: true })] },
    });
    const { msg } = await reply(agent, "where?");
    expect(msg.content.map((b) => b.type)).toEqual(["text", "tool_call", "tool_result", "text"]);
    expect(textOf(msg)).toBe("Let me look that up for you.\nIt is at [REDACTED:email] now.");
  });

  it("hold back at most lookAhead characters: each delta goes out once more than that has arrived", async () => {
    let arrived = 0;
    async function* source(): AsyncGenerator<ChatChunk> {
      for (let i = 0; i < 40; i++) {
        arrived += 5;
        yield { type: "text", blockId: "b", delta: "abcde" };
      }
      yield { type: "final", content: [], usage: { inputTokens: 0, outputTokens: 0 }, stopReason: "stop" };
    }
    let sent = 0;
    for await (const chunk of guardStreamedText(source(), {
      check: async (text) => ({ text, rewritten: false }),
      lookAhead: 12,
      tripped: () => {},
      inputTokens: () => 0,
    })) {
      if (chunk.type !== "text") continue;
      sent += chunk.delta.length;
      if (arrived < 200) expect(arrived - sent).toBeLessThanOrEqual(12);
    }
    expect(sent).toBe(200);
  });

  it("off, nothing is held: the text streams as the model sent it (a control)", async () => {
    const deltas = ["Write to jane.d", "oe@exam", "ple.com today."];
    const result = await reply(agentWith(new DeltaModel(deltas), { output: [] }), "hi");
    expect(result.deltas).toEqual(deltas);
  });

  it("a bad lookAhead or a streamed guardrail outside the output list is refused, naming it", () => {
    const model = new ScriptedModel([]);
    const bad = (guardrails: unknown) => () =>
      new Agent({ name: "a", model, guardrails: guardrails as GuardrailOptions });
    expect(bad({ lookAhead: 0 })).toThrow(/lookAhead: expected an integer ≥ 1/);
    expect(bad({ input: [piiGuardrail({ streamed: true })] })).toThrow(/input\[0\]: "pii" is streamed/);
  });
});
