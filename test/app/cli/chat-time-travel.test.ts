import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { PassThrough } from "node:stream";
import { afterAll, describe, expect, it } from "vitest";
import { httpChatClient, runtimeChatClient } from "../../../src/app/cli/chat-client.js";
import { chatLoop } from "../../../src/app/cli/chat-command.js";
import { chatRuntime } from "../../../src/app/cli/chat-runtime.js";
import { LineReader } from "../../../src/app/cli/line-reader.js";
import { parseServiceConfig } from "../../../src/app/server/config/service-config.js";
import { startServer } from "../../../src/app/server/start-server.js";
import type { Msg } from "../../../src/message/index.js";
import type { ChatModel } from "../../../src/model/core.js";
import { ScriptedModel, type ScriptedTurn } from "../../../src/testing/index.js";

const dirs: string[] = [];
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

const lastUserText = (messages: Msg[]) =>
  (messages.findLast((m) => m.role === "user")?.content ?? [])
    .map((b) => (b.type === "text" ? b.text : ""))
    .join(" ");

/** Writes the user's text to notes.txt with the Write tool, then says so. */
function writerModel(): ChatModel {
  const base = new ScriptedModel([]);
  const turn = (messages: Msg[]): ScriptedTurn =>
    messages.at(-1)?.content.some((b) => b.type === "tool_result")
      ? { text: `Wrote ${lastUserText(messages)}.` }
      : { toolCalls: [{ name: "Write", input: { path: "notes.txt", content: lastUserText(messages) } }] };
  return {
    name: "writer",
    provider: "scripted",
    contextSize: base.contextSize,
    countTokens: (messages, tools) => base.countTokens(messages, tools),
    stream: (messages, opts) => new ScriptedModel([turn(messages)]).stream(messages, opts),
  };
}

const config = (dataDir: string, checkpoints?: boolean) =>
  parseServiceConfig({
    agents: [{ name: "writer", model: writerModel(), tools: ["Write"], permission: { mode: "bypass" } }],
    workspaces: { dataDir, sandbox: false },
    ...(checkpoints === undefined ? {} : { checkpoints }),
  });

/**
 * Runs the chat loop on `answers`: each is typed at the next prompt (`> ` or a question), then
 * /exit. Returns what was shown.
 */
async function chat(client: Parameters<typeof chatLoop>[0], answers: string[]): Promise<string> {
  const input = new PassThrough();
  const out = new PassThrough();
  let shown = "";
  const queue = [...answers, "/exit"];
  out.on("data", (d) => {
    shown += d;
    if ((shown.endsWith("> ") || shown.endsWith("(empty cancels): ")) && queue.length > 0)
      input.write(`${queue.shift()}\n`);
  });
  await chatLoop(client, { lines: new LineReader(input, out), out, color: false });
  return shown;
}

describe("/rewind and /fork in agentscope chat", () => {
  it("in process: /rewind lists the line and goes back (files too), says how to undo; /rewind <undo> undoes; /fork goes on in a fork", async () => {
    const dataDir = mkdtempSync(join(tmpdir(), "agentscope-chat-tt-"));
    dirs.push(dataDir);
    const local = await chatRuntime(config(dataDir));
    try {
      const client = await runtimeChatClient(local.runtime, undefined, local.readWorkspaceFile);
      const notes = (sessionId: string) =>
        readFileSync(join(dataDir, "workspaces", "sessions", `s-${sessionId}`, "notes.txt"), "utf8");
      const shown = await chat(client, ["alpha", "beta", "/rewind", "cp-2"]);
      expect(shown).toContain("checkpoints of this session, oldest first:");
      expect(shown).toMatch(/cp-2 +reply end +2 messages +assistant: "Wrote alpha\."/);
      expect(shown).toMatch(/cp-3 +reply end +4 messages .*\(you are here\)/);
      expect(shown).toContain(
        "back at cp-2: 2 messages, permission grants as they were, workspace files put back (1 written, 0 removed)",
      );
      expect(shown).toContain("not restored: what the agent did outside the session");
      const undo = /undo with \/rewind (cp-\d+)/.exec(shown)![1]!;
      expect(notes(client.sessionId)).toBe("alpha");
      expect(await local.runtime.messages("local", client.sessionId)).toHaveLength(2);

      const again = await chat(client, [`/rewind ${undo}`, "/fork cp-2", "gamma"]);
      expect(again).toContain(`back at ${undo}: 4 messages`);
      expect(notes(client.sessionId)).toBe("beta");
      const fork = /forked cp-2 into session (\S+):/.exec(again)![1]!;
      expect(again).toContain("Wrote gamma.");
      expect(notes(fork)).toBe("gamma");
      expect(notes(client.sessionId)).toBe("beta");
      expect(await local.runtime.messages("local", fork)).toHaveLength(4);
      expect(await local.runtime.messages("local", client.sessionId)).toHaveLength(4);
    } finally {
      await local.close();
    }
  });

  it("an empty answer cancels; a config with checkpoints: false keeps none and says so", async () => {
    const dataDir = mkdtempSync(join(tmpdir(), "agentscope-chat-tt-"));
    dirs.push(dataDir);
    const on = await chatRuntime(config(dataDir));
    try {
      const client = await runtimeChatClient(on.runtime, undefined, on.readWorkspaceFile);
      expect(await chat(client, ["alpha", "/fork", ""])).toContain("cancelled");
      expect((await on.runtime.listSessions("local")).sessions).toHaveLength(1);
    } finally {
      await on.close();
    }
    const off = await chatRuntime(config(dataDir, false));
    try {
      const client = await runtimeChatClient(off.runtime, undefined, off.readWorkspaceFile);
      expect(await chat(client, ["/rewind cp-1"])).toContain("/rewind: this chat keeps no checkpoints");
    } finally {
      await off.close();
    }
  });

  it("over HTTP (--url): /rewind and /fork use the server's routes", async () => {
    const dataDir = mkdtempSync(join(tmpdir(), "agentscope-chat-tt-"));
    dirs.push(dataDir);
    const server = await startServer({
      config: config(dataDir, true),
      store: "memory:",
      port: 0,
      tokensEnv: "",
      withoutOptionalRoutes: true,
    });
    try {
      const client = await httpChatClient({ url: server.url });
      const shown = await chat(client, ["alpha", "beta", "/rewind cp-2", "/fork cp-2", "delta"]);
      expect(shown).toContain("back at cp-2: 2 messages");
      const fork = /forked cp-2 into session (\S+):/.exec(shown)![1]!;
      expect(shown).toContain("Wrote delta.");
      expect(await server.runtime.messages("local", fork)).toHaveLength(4);
      expect(await server.runtime.messages("local", client.sessionId)).toHaveLength(2);
    } finally {
      await server.close();
    }
  });
});
