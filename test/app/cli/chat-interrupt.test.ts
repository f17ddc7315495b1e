import { PassThrough } from "node:stream";
import { expect, it } from "vitest";
import type { ChatClient } from "../../../src/app/cli/chat-client.js";
import { chatLoop } from "../../../src/app/cli/chat-command.js";
import { LineReader } from "../../../src/app/cli/line-reader.js";
import type { ConfirmAnswer } from "../../../src/app/server/runtime/service-runtime.js";
import { type AgentEvent, createEvent } from "../../../src/event/index.js";

it("Ctrl-C at the Allow? question denies that call and the chat goes on (it does not quit)", async () => {
  const confirmed: ConfirmAnswer[][] = [];
  const client: ChatClient = {
    sessionId: "s",
    async *send(): AsyncGenerator<AgentEvent> {
      yield createEvent("REQUIRE_USER_CONFIRM", {
        replyId: "r",
        toolCalls: [{ type: "tool_call", id: "c1", name: "save_note", input: "{}", state: "asking" }],
      } as never);
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
  out.on("data", (d) => {
    shown += d;
    if (/Allow save_note\? [^\n]*: $/.test(shown)) lines.rl.emit("SIGINT");
    if (shown.includes("[denied]") && shown.endsWith("> ") && !input.writableEnded) input.end("/exit\n");
  });
  const lines = new LineReader(input, out);
  input.write("save a note\n");
  await chatLoop(client, { lines, out, color: false });
  expect(confirmed).toEqual([[{ toolCallId: "c1", confirmed: false }]]);
  expect(shown).toContain("[denied]");
});
