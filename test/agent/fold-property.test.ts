import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { Agent } from "../../src/agent/index.js";
import { type AgentEvent, applyEvent, userConfirmResult } from "../../src/event/index.js";
import { type Msg, userMsg } from "../../src/message/index.js";
import { ScriptedModel, type ScriptedTurn } from "../../src/testing/index.js";
import { functionTool } from "../../src/tool/index.js";

const tools = [
  functionTool({
    name: "ok",
    description: "",
    input: z.object({ n: z.number() }),
    readOnly: true,
    execute: ({ n }) => `n=${n}`,
  }),
  functionTool({
    name: "stream",
    description: "",
    input: z.object({ n: z.number() }),
    readOnly: true,
    async *execute({ n }) {
      for (let i = 0; i < n % 4; i++) yield `part ${i};`;
      yield {
        type: "data",
        id: `img${n}`,
        source: { type: "base64", mediaType: "image/png", data: "iVBORw0KGgo=" },
      };
    },
  }),
  functionTool({
    name: "fails",
    description: "",
    input: z.object({ n: z.number() }),
    readOnly: true,
    execute: () => {
      throw new Error("nope");
    },
  }),
  functionTool({
    name: "asks",
    description: "",
    input: z.object({ n: z.number() }),
    execute: ({ n }) => ({ wrote: n }),
  }),
];

const toolCall = fc.record({
  name: fc.constantFrom("ok", "stream", "fails", "asks", "missing"),
  input: fc.oneof(
    fc.record({ n: fc.integer({ min: 0, max: 9 }) }).map((v) => v as unknown),
    fc.constant('{"n": 1'), // broken JSON
    fc.constant({ m: 1 } as unknown), // schema violation
  ),
});

const turn: fc.Arbitrary<ScriptedTurn> = fc
  .record(
    {
      thinking: fc.string({ maxLength: 20 }),
      text: fc.string({ maxLength: 30 }),
      toolCalls: fc.array(toolCall, { minLength: 1, maxLength: 3 }),
      signature: fc.string({ minLength: 1, maxLength: 8 }),
      failAfter: fc.integer({ min: 0, max: 6 }),
    },
    { requiredKeys: [] },
  )
  .map((t) => {
    const out: ScriptedTurn = {};
    if (t.thinking !== undefined) out.thinking = t.thinking;
    if (t.signature !== undefined && t.thinking !== undefined)
      out.thinkingExtras = { signature: t.signature };
    if (t.text !== undefined) out.text = t.text;
    if (t.toolCalls) out.toolCalls = t.toolCalls;
    if (t.failAfter !== undefined && t.failAfter < 2) {
      out.error = { type: "upstream", message: "boom" };
      out.errorAfter = t.failAfter;
    }
    return out;
  });

const script = fc.record({
  turns: fc.array(turn, { minLength: 1, maxLength: 5 }),
  answers: fc.array(fc.boolean(), { maxLength: 8 }),
  interruptAt: fc.option(fc.integer({ min: 1, max: 40 }), { nil: undefined }),
});

describe("folding a reply's events rebuilds the stored Msg (DESIGN.md §3.2 invariant 2)", () => {
  it("for any scripted reply: text, thinking, tool calls, parallel calls, errors, pauses and interrupts", async () => {
    await fc.assert(
      fc.asyncProperty(script, async ({ turns, answers, interruptAt }) => {
        const model = new ScriptedModel([...turns, { text: "final" }], { chunkSize: 3 });
        const agent = new Agent({ name: "prop", model, toolkit: tools, maxIters: 4 });
        const controller = new AbortController();
        let folded: Msg | undefined;
        let count = 0;
        const consume = async (stream: AsyncIterable<AgentEvent>) => {
          for await (const event of stream) {
            folded = applyEvent(folded, event);
            count += 1;
            if (interruptAt !== undefined && count === interruptAt) controller.abort();
          }
        };
        await consume(agent.replyStream(userMsg("go"), { signal: controller.signal }));
        let answer = 0;
        while (agent.state.replyContext?.waitingFor === "user_confirm") {
          const reply = agent.state.context.at(-1)!;
          const asking = reply.content.filter((b) => b.type === "tool_call" && b.state === "asking");
          const confirmResults = asking.map((call) => ({
            confirmed: answers[answer++ % Math.max(1, answers.length)] ?? true,
            toolCall: call as { id: string; name: string; input: string },
          }));
          await consume(
            agent.replyStream(userConfirmResult({ replyId: reply.id, confirmResults }), {
              signal: controller.signal,
            }),
          );
        }
        const stored = agent.state.context.at(-1)!;
        expect(folded).toEqual(stored);
        // invariant 3: a finished reply leaves every call paired with a result
        if (stored.finishedReason) {
          const results = new Set(stored.content.filter((b) => b.type === "tool_result").map((b) => b.id));
          for (const b of stored.content) if (b.type === "tool_call") expect(results.has(b.id)).toBe(true);
        }
      }),
      { numRuns: 150 },
    );
  }, 60_000);
});
