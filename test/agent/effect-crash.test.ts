import { type ChildProcess, spawn } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { Agent, retryAnswer, Session } from "../../src/agent/index.js";
import { decisionsOf, userConfirmResult } from "../../src/event/index.js";
import { blocksOf, userMsg } from "../../src/message/index.js";
import { type CreateStateStoreOptions, createStateStore } from "../../src/state/index.js";
import { ScriptedModel } from "../../src/testing/index.js";
import { functionTool } from "../../src/tool/index.js";
import { missingService, reportMissingService, runName } from "../support/services.js";

// kill -9 of a process while a tool with side effects runs (test/agent/fixtures/session-child.ts,
// modes "effect" and "effect-idempotent"), then the session opened in this process.

const root = join(import.meta.dirname, "../..");
const child = join(import.meta.dirname, "fixtures/session-child.ts");

const backends: Array<{
  name: string;
  port?: number;
  url: (dir: string) => string;
  options: CreateStateStoreOptions;
}> = [
  { name: "sqlite", url: (dir) => `sqlite:${join(dir, "state.db")}`, options: {} },
  {
    name: "redis",
    port: 6379,
    url: () => "redis://127.0.0.1:6379",
    options: { prefix: `${runName("eff")}:` },
  },
  {
    name: "postgres",
    port: 5432,
    url: () => "postgres://postgres@127.0.0.1:5432/test",
    options: { table: runName("eff") },
  },
];

function waitForLine(path: string, proc: ChildProcess, timeoutMs = 20_000): Promise<void> {
  const started = Date.now();
  return new Promise((resolve, reject) => {
    const timer = setInterval(() => {
      if (existsSync(path) && readFileSync(path, "utf8").includes("one ")) {
        clearInterval(timer);
        resolve();
      } else if (proc.exitCode !== null || Date.now() - started > timeoutMs) {
        clearInterval(timer);
        reject(new Error(`the child never started its tool (exit ${proc.exitCode})`));
      }
    }, 20);
  });
}

/** The agent of this process: the same tools; `work` writes its key again. */
function restartedAgent(marker: string, idempotent: boolean, runs: string[]) {
  return new Agent({
    name: "worker",
    model: new ScriptedModel([{ text: "finished" }]),
    permission: { mode: "bypass" },
    toolkit: [
      functionTool({
        name: "lookup",
        description: "",
        input: z.object({ q: z.string() }),
        readOnly: true,
        execute: () => "found",
      }),
      functionTool({
        name: "work",
        description: "",
        input: z.object({ step: z.string() }),
        idempotent,
        execute: ({ step }, ctx) => {
          runs.push(`${step} ${ctx.idempotencyKey}`);
          return `did ${step} (${marker})`;
        },
      }),
    ],
  });
}

async function killMidEffect(url: string, options: CreateStateStoreOptions, mode: string) {
  const dir = mkdtempSync(join(tmpdir(), "agentscope-effect-"));
  const marker = join(dir, "marker.log");
  const sessionId = runName("e");
  const proc = spawn(
    process.execPath,
    ["--import", "tsx", child, url.replace("$dir", dir), JSON.stringify(options), sessionId, marker, mode],
    { cwd: root, stdio: "ignore" },
  );
  await waitForLine(marker, proc);
  expect(proc.exitCode).toBeNull();
  proc.kill("SIGKILL");
  if (proc.signalCode === null) await new Promise((resolve) => proc.once("exit", resolve));
  const firstKey = readFileSync(marker, "utf8").trim().split(" ")[1]!;
  return { dir, marker, sessionId, firstKey };
}

for (const backend of backends) {
  describe(`kill -9 while an effect runs, on ${backend.name}`, async () => {
    const missing = backend.port ? await missingService(backend.name, backend.port) : undefined;
    if (missing) {
      reportMissingService(missing);
      return;
    }

    it("the reopened session asks before running it again, and runs it with the same key once approved", async () => {
      const dir = mkdtempSync(join(tmpdir(), "agentscope-effect-url-"));
      const url = backend.url(dir);
      const killed = await killMidEffect(url, backend.options, "effect");
      const store = await createStateStore(url, backend.options);
      try {
        const runs: string[] = [];
        const session = await Session.open(
          restartedAgent(killed.marker, false, runs),
          store,
          killed.sessionId,
        );
        const reply = session.state.replyContext!;
        expect(reply.waitingFor).toBe("user_confirm");
        expect(retryAnswer(session.state)).toBeUndefined();
        // Saved as a pause: another process that loads it sees the same question.
        expect((await store.load(killed.sessionId))?.state.replyContext?.waitingFor).toBe("user_confirm");
        const unknown = decisionsOf(session.state.context).find((r) => r.outcome === "outcome_unknown")!;
        expect(unknown).toMatchObject({ toolName: "work", resolution: "ask" });
        await expect(session.reply(userMsg("go on"))).rejects.toThrow(/waiting for a confirmation/);
        expect(runs).toEqual([]);
        const retry = blocksOf(session.state.context.at(-1)!, "tool_call").find(
          (c) => c.id === unknown.retryCallId,
        )!;
        await session.reply(
          userConfirmResult({
            replyId: reply.replyId,
            confirmResults: [{ confirmed: true, toolCall: retry }],
          }),
        );
        expect(runs).toEqual([`one ${killed.firstKey}`]);
        expect(session.state.context.at(-1)?.finishedReason).toBe("completed");
        await store.delete(killed.sessionId);
      } finally {
        await store.close();
      }
    }, 40_000);

    it("an idempotent tool is run again by the runtime's answer with the same key", async () => {
      const dir = mkdtempSync(join(tmpdir(), "agentscope-effect-url-"));
      const url = backend.url(dir);
      const killed = await killMidEffect(url, backend.options, "effect-idempotent");
      const store = await createStateStore(url, backend.options);
      try {
        const runs: string[] = [];
        const session = await Session.open(
          restartedAgent(killed.marker, true, runs),
          store,
          killed.sessionId,
        );
        const answer = retryAnswer(session.state);
        expect(answer).toBeDefined();
        await session.reply(answer!);
        expect(runs).toEqual([`one ${killed.firstKey}`]);
        const records = decisionsOf(session.state.context);
        expect(records.find((r) => r.outcome === "outcome_unknown")).toMatchObject({ resolution: "retry" });
        expect(records.find((r) => r.outcome === "approve")).toMatchObject({ actor: "runtime" });
        await store.delete(killed.sessionId);
      } finally {
        await store.close();
      }
    }, 40_000);
  });
}
