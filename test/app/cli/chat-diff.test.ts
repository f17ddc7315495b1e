import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { PassThrough } from "node:stream";
import { afterAll, expect, it } from "vitest";
import { type ChatClient, httpChatClient } from "../../../src/app/cli/chat-client.js";
import { chatLoop } from "../../../src/app/cli/chat-command.js";
import { LineReader } from "../../../src/app/cli/line-reader.js";
import { startServer } from "../../../src/app/server/start-server.js";
import { type AgentEvent, createEvent } from "../../../src/event/index.js";
import { ScriptedModel } from "../../../src/testing/index.js";

const WRITE_ARGS = '{"path":"notes.md","content":"buy oat milk\\ncall mum\\n"}';

/** Runs one chat turn: sends "go", answers every Allow? with `answer`, then exits; returns what was shown. */
async function chatOnce(client: ChatClient, answer = "n"): Promise<string> {
  const input = new PassThrough();
  const out = new PassThrough();
  let shown = "";
  let asked = false;
  out.on("data", (d) => {
    shown += d;
    const last = shown.split("\n").at(-1) ?? "";
    if (/^Allow \w+\? [^\n]*: $/.test(last)) {
      asked = true;
      input.write(`${answer}\n`);
    }
    if (asked && shown.endsWith("> ") && !input.writableEnded) input.end("/exit\n");
  });
  input.write("go\n");
  await chatLoop(client, { lines: new LineReader(input, out), out, color: false });
  return shown;
}

it("prints a Write's arguments once, then its diff against the file as it is now, and names the rule 'always' adds", async () => {
  const reads: string[] = [];
  const client: ChatClient = {
    sessionId: "s",
    async *send(): AsyncGenerator<AgentEvent> {
      yield createEvent("TOOL_CALL_START", { replyId: "r", toolCallId: "c1", toolCallName: "Write" });
      yield createEvent("TOOL_CALL_DELTA", { replyId: "r", toolCallId: "c1", delta: WRITE_ARGS });
      yield createEvent("TOOL_CALL_END", { replyId: "r", toolCallId: "c1" });
      yield createEvent("REQUIRE_USER_CONFIRM", {
        replyId: "r",
        toolCalls: [
          {
            type: "tool_call",
            id: "c1",
            name: "Write",
            input: WRITE_ARGS,
            state: "asking",
            reason: "default mode asks before Write runs",
            suggestedRules: ["Write(**)"],
          },
        ],
      });
    },
    async *confirm(): AsyncGenerator<AgentEvent> {
      yield createEvent("REPLY_END", { replyId: "r", finishedReason: "completed" });
    },
    async readFile(path) {
      reads.push(path);
      return "buy milk\ncall mum\n";
    },
    interrupt: async () => {},
    close: async () => {},
  };
  const shown = await chatOnce(client);
  expect(shown.split(WRITE_ARGS).length - 1).toBe(1);
  expect(shown).toContain("? Write needs your approval (default mode asks before Write runs)");
  expect(shown).toContain(
    "notes.md: +1 −1 (against the file as it is now)\n- buy milk\n+ buy oat milk\n  call mum\n",
  );
  expect(shown).toContain("Allow Write? [y]es / [n]o / [a]lways (remember Write(**)): ");
  expect(reads).toEqual(["notes.md"]);
});

it("prints the arguments of an ask whose call this stream did not show (a resumed or nested call)", async () => {
  const client: ChatClient = {
    sessionId: "s",
    async *send(): AsyncGenerator<AgentEvent> {
      yield createEvent("REQUIRE_USER_CONFIRM", {
        replyId: "r",
        toolCalls: [
          { type: "tool_call", id: "c9", name: "Bash", input: '{"command":"make"}', state: "asking" },
        ],
      });
    },
    async *confirm(): AsyncGenerator<AgentEvent> {
      yield createEvent("REPLY_END", { replyId: "r", finishedReason: "completed" });
    },
    interrupt: async () => {},
    close: async () => {},
  };
  const shown = await chatOnce(client);
  expect(shown).toContain('? Bash {"command":"make"} needs your approval');
  expect(shown).not.toContain("+ ");
});

const dataDir = mkdtempSync(join(tmpdir(), "agentscope-chat-diff-"));
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

it("over HTTP: diffs the built-in Edit and Write against the session's workspace file, 'new file' when missing", async () => {
  const server = await startServer({
    config: {
      agents: [
        {
          name: "writer",
          model: new ScriptedModel([
            {
              toolCalls: [
                { name: "Edit", input: { path: "notes.md", oldString: "call mum", newString: "call dad" } },
              ],
            },
            { text: "Left as it is." },
            { toolCalls: [{ name: "Write", input: { path: "fresh.md", content: "brand new\n" } }] },
            { text: "Not written." },
          ]),
          tools: ["Edit", "Write"],
        },
      ],
    },
    store: "memory:",
    port: 0,
    tokensEnv: "tok-cli:alice",
    workspaces: { dataDir },
  });
  try {
    const client = await httpChatClient({ url: server.url, token: "tok-cli" });
    const root = join(dataDir, "workspaces", "sessions", `s-${client.sessionId}`);
    mkdirSync(root, { recursive: true });
    writeFileSync(join(root, "notes.md"), "buy milk\ncall mum\n");
    expect(await client.readFile?.("../outside.md")).toBeNull();
    expect(await client.readFile?.("nope.md")).toBeUndefined();

    const edit = await chatOnce(client);
    expect(edit).toContain(
      "notes.md: +1 −1 (against the file as it is now)\n  buy milk\n- call mum\n+ call dad\n",
    );
    const write = await chatOnce(client);
    expect(write).toContain("fresh.md: +1 −0 (new file)\n+ brand new\n");
  } finally {
    await server.close();
  }
});
