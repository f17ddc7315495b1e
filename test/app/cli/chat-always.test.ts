import { PassThrough } from "node:stream";
import { expect, it } from "vitest";
import type { ChatClient } from "../../../src/app/cli/chat-client.js";
import { chatLoop } from "../../../src/app/cli/chat-command.js";
import { LineReader } from "../../../src/app/cli/line-reader.js";
import type { ConfirmAnswer } from "../../../src/app/server/runtime/service-runtime.js";
import { type AgentEvent, createEvent } from "../../../src/event/index.js";

it("offers [a]lways only with a suggested rule, sends exactly that rule, and never a blanket one", async () => {
  const confirmed: ConfirmAnswer[][] = [];
  const client: ChatClient = {
    sessionId: "s",
    async *send(): AsyncGenerator<AgentEvent> {
      yield createEvent("REQUIRE_USER_CONFIRM", {
        replyId: "r",
        toolCalls: [
          {
            type: "tool_call",
            id: "c1",
            name: "Bash",
            input: '{"command":"touch a"}',
            state: "asking",
            suggestedRules: ["Bash(touch:*)"],
          },
          // A safety ask: no rule to remember.
          { type: "tool_call", id: "c2", name: "Bash", input: '{"command":"rm -rf x"}', state: "asking" },
        ],
      });
    },
    async *confirm(answers): AsyncGenerator<AgentEvent> {
      confirmed.push(answers);
      yield createEvent("REPLY_END", { replyId: "r", finishedReason: "completed" });
    },
    interrupt: async () => {},
    close: async () => {},
  };
  const input = new PassThrough();
  const out = new PassThrough();
  let shown = "";
  let answered = 0;
  out.on("data", (d) => {
    shown += d;
    if (/Allow Bash\? [^\n]*: $/.test(shown.split("\n").at(-1) ?? "") && answered < 2) {
      answered += 1;
      input.write("a\n");
    }
    if (answered === 2 && shown.endsWith("> ") && !input.writableEnded) input.end("/exit\n");
  });
  const lines = new LineReader(input, out);
  input.write("go\n");
  await chatLoop(client, { lines, out, color: false });
  expect(shown).toContain("Allow Bash? [y]es / [n]o / [a]lways (remember Bash(touch:*)): ");
  expect(shown).toContain("Allow Bash? [y]es / [n]o: ");
  expect(confirmed).toEqual([
    [
      { toolCallId: "c1", confirmed: true, rules: ["Bash(touch:*)"] },
      { toolCallId: "c2", confirmed: false },
    ],
  ]);
});
