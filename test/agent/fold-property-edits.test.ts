import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { Agent } from "../../src/agent/index.js";
import { type AgentEvent, applyEvent, userConfirmResult } from "../../src/event/index.js";
import { type Msg, userMsg } from "../../src/message/index.js";
import { ScriptedModel } from "../../src/testing/index.js";
import { functionTool } from "../../src/tool/index.js";

/**
 * `n` ≥ 7 is denied by its own check, 4–6 asks with a reason naming `n` (another ask for each),
 * anything else asks the mode's ask. `ran` logs what really ran.
 */
function counter(ran: number[]) {
  return functionTool({
    name: "count",
    description: "",
    input: z.object({ n: z.number() }),
    concurrencySafe: true,
    checkPermissions: (input) => {
      const { n } = input as { n: number };
      if (n >= 7) return { behavior: "deny", reason: `n=${n} is too big` };
      if (n >= 4) return { behavior: "ask", reason: `n=${n} is big` };
      return { behavior: "passthrough" };
    },
    execute: ({ n }) => {
      ran.push(n);
      return `n=${n}`;
    },
  });
}

const edit = fc.oneof(
  fc.constant(undefined), // approve as asked
  fc.integer({ min: 0, max: 9 }).map((n) => JSON.stringify({ n })),
  fc.constant('{"n": 1'), // broken JSON
  fc.constant('{"m": 1}'), // schema violation
);

const script = fc.record({
  calls: fc.array(fc.integer({ min: 0, max: 6 }), { minLength: 1, maxLength: 3 }),
  answers: fc.array(fc.record({ confirmed: fc.boolean(), input: edit }), { minLength: 1, maxLength: 8 }),
});

describe("edited approvals, folded: the log rebuilds the stored Msg and nothing denied ever runs", () => {
  it("for any calls and any answers (approve, refuse, edit into another ask, a deny, broken JSON)", async () => {
    await fc.assert(
      fc.asyncProperty(script, async ({ calls, answers }) => {
        const ran: number[] = [];
        const model = new ScriptedModel([
          { toolCalls: calls.map((n) => ({ name: "count", input: { n } })) },
          { text: "final" },
        ]);
        const agent = new Agent({
          name: "prop",
          model,
          toolkit: [counter(ran)],
        });
        let folded: Msg | undefined;
        const consume = async (stream: AsyncIterable<AgentEvent>) => {
          for await (const event of stream) folded = applyEvent(folded, event);
        };
        await consume(agent.replyStream(userMsg("go")));
        let next = 0;
        for (let round = 0; agent.state.replyContext?.waitingFor === "user_confirm" && round < 12; round++) {
          const reply = agent.state.context.at(-1)!;
          const asking = reply.content.filter((b) => b.type === "tool_call" && b.state === "asking");
          const confirmResults = asking.map((call) => {
            const answer = answers[next++ % answers.length]!;
            const block = call as { id: string; name: string; input: string };
            return {
              confirmed: answer.confirmed,
              toolCall: { id: block.id, name: block.name, input: answer.input ?? block.input },
            };
          });
          await consume(agent.replyStream(userConfirmResult({ replyId: reply.id, confirmResults })));
        }
        expect(folded).toEqual(agent.state.context.at(-1));
        expect(ran.filter((n) => n >= 7)).toEqual([]);
      }),
      { numRuns: 150 },
    );
  }, 60_000);
});
