import { type ChildProcess, execFile, spawn } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { Agent, Session } from "../../src/agent/index.js";
import { userConfirmResult } from "../../src/event/index.js";
import { blocksOf, textOf, userMsg } from "../../src/message/index.js";
import {
  type AgentStateStore,
  type CreateStateStoreOptions,
  createStateStore,
} from "../../src/state/index.js";
import { ScriptedModel } from "../../src/testing/index.js";
import { functionTool } from "../../src/tool/index.js";
import { missingService, reportMissingService, runName } from "../support/services.js";

const root = join(import.meta.dirname, "../..");
const child = join(import.meta.dirname, "fixtures/session-child.ts");
const run = promisify(execFile);

interface Backend {
  name: string;
  port?: number;
  url: (dir: string) => string;
  options: CreateStateStoreOptions;
}

const backends: Backend[] = [
  { name: "json file", url: (dir) => `file:${join(dir, "sessions")}`, options: {} },
  { name: "sqlite", url: (dir) => `sqlite:${join(dir, "state.db")}`, options: {} },
  {
    name: "redis",
    port: 6379,
    url: () => "redis://127.0.0.1:6379",
    options: { prefix: `${runName("dur")}:` },
  },
  {
    name: "postgres",
    port: 5432,
    url: () => "postgres://postgres@127.0.0.1:5432/test",
    options: { table: runName("dur") },
  },
  {
    name: "mysql",
    port: 3306,
    url: () => "mysql://root@127.0.0.1:3306/test",
    options: { table: runName("dur") },
  },
];

function waitForFile(path: string, proc: ChildProcess, timeoutMs = 20_000): Promise<void> {
  const started = Date.now();
  return new Promise((resolve, reject) => {
    const timer = setInterval(() => {
      if (existsSync(path) && readFileSync(path, "utf8").includes("one")) {
        clearInterval(timer);
        resolve();
      } else if (proc.exitCode !== null || Date.now() - started > timeoutMs) {
        clearInterval(timer);
        reject(new Error(`the child never started its tool (exit ${proc.exitCode})`));
      }
    }, 20);
  });
}

function resumingAgent(marker: string) {
  const work = functionTool({
    name: "work",
    description: "",
    input: z.object({ step: z.string() }),
    execute: ({ step }) => `did ${step} again`,
  });
  const lookup = functionTool({
    name: "lookup",
    description: "",
    input: z.object({ q: z.string() }),
    readOnly: true,
    execute: () => "found",
  });
  return new Agent({
    name: "worker",
    model: new ScriptedModel([{ text: `next reply works (${marker})` }]),
    toolkit: [lookup, work],
  });
}

for (const backend of backends) {
  describe(`durable sessions on ${backend.name}`, async () => {
    const missing = backend.port ? await missingService(backend.name, backend.port) : undefined;
    if (missing) {
      reportMissingService(missing);
      return;
    }

    it("kill -9 in the middle of a tool: reload keeps finished results, closes the running call as interrupted, next reply works", async () => {
      const dir = mkdtempSync(join(tmpdir(), "agentscope-durable-"));
      const marker = join(dir, "marker.log");
      const sessionId = runName("s");
      const proc = spawn(
        process.execPath,
        [
          "--import",
          "tsx",
          child,
          backend.url(dir),
          JSON.stringify(backend.options),
          sessionId,
          marker,
          "hang",
        ],
        { cwd: root, stdio: "ignore" },
      );
      await waitForFile(marker, proc);
      expect(proc.exitCode).toBeNull(); // still in the tool: the kill lands mid-call
      proc.kill("SIGKILL");
      if (proc.signalCode === null) await new Promise((resolve) => proc.once("exit", resolve));

      const store: AgentStateStore = await createStateStore(backend.url(dir), backend.options);
      try {
        const session = await Session.open(resumingAgent("x"), store, sessionId);
        const reply = session.state.context.at(-1)!;
        expect(reply.finishedReason).toBe("interrupted");
        expect(session.state.replyContext).toBeUndefined();
        const results = blocksOf(reply, "tool_result");
        expect(results.map((r) => [r.name, r.state])).toEqual([
          ["lookup", "success"],
          ["work", "interrupted"],
        ]);
        expect(results[1]!.output).toContain("not run again");
        const next = await session.reply(userMsg("status?"));
        expect(textOf(next)).toBe("next reply works (x)");
        expect(readFileSync(marker, "utf8")).toBe("one\n");
        const reloaded = await store.load(sessionId);
        expect(reloaded?.version).toBe(session.version);
        expect(reloaded?.state.context.at(-1)?.id).toBe(next.id);
        await store.delete(sessionId);
      } finally {
        await store.close();
      }
    }, 40_000);

    it("a reply paused in one process resumes in another that opens the session; the tool runs once", async () => {
      const dir = mkdtempSync(join(tmpdir(), "agentscope-durable-"));
      const marker = join(dir, "marker.log");
      const sessionId = runName("p");
      await run(
        process.execPath,
        [
          "--import",
          "tsx",
          child,
          backend.url(dir),
          JSON.stringify(backend.options),
          sessionId,
          marker,
          "pause",
        ],
        {
          cwd: root,
          timeout: 30_000,
        },
      );
      const store = await createStateStore(backend.url(dir), backend.options);
      try {
        const agent = new Agent({
          name: "worker",
          model: new ScriptedModel([{ text: "finished" }]),
          toolkit: [
            functionTool({
              name: "work",
              description: "",
              input: z.object({ step: z.string() }),
              execute: ({ step }) => `did ${step} here`,
            }),
            functionTool({
              name: "lookup",
              description: "",
              input: z.object({ q: z.string() }),
              readOnly: true,
              execute: () => "found",
            }),
          ],
        });
        const session = await Session.open(agent, store, sessionId);
        expect(session.state.replyContext?.waitingFor).toBe("user_confirm");
        const reply = session.state.context.at(-1)!;
        const call = blocksOf(reply, "tool_call").find((c) => c.state === "asking")!;
        const final = await session.reply(
          userConfirmResult({ replyId: reply.id, confirmResults: [{ confirmed: true, toolCall: call }] }),
        );
        expect(final.id).toBe(reply.id);
        expect(final.finishedReason).toBe("completed");
        expect(blocksOf(final, "tool_result").map((r) => r.output)).toEqual(["found", "did one here"]);
        expect(existsSync(marker)).toBe(false); // the first process never ran the tool
        expect((await store.load(sessionId))?.state.replyContext).toBeUndefined();
        await store.delete(sessionId);
      } finally {
        await store.close();
      }
    }, 40_000);
  });
}
