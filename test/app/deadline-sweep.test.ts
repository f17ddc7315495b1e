import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { createBackend } from "../../src/app/server/backend/create-backend.js";
import type { ServiceBackend } from "../../src/app/server/backend/types.js";
import { DEADLINE_LOG } from "../../src/app/server/runtime/deadline-index.js";
import { ServiceRuntime } from "../../src/app/server/runtime/service-runtime.js";
import { type AgentEvent, decisionsIn } from "../../src/event/index.js";
import { userMsg } from "../../src/message/index.js";
import { dropBackend } from "../state/drop-backend.js";
import { missingService, reportMissingService, runName } from "../support/services.js";
import { conversationModel, recordTool } from "./fixtures/agents.js";

const dir = mkdtempSync(join(tmpdir(), "agentscope-deadlines-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const kinds = [
  { name: "SQLite", url: () => `sqlite:${join(dir, `${runName("db")}.db`)}` },
  { name: "Redis", url: () => "redis://127.0.0.1:6379", port: 6379 },
  { name: "PostgreSQL", url: () => "postgres://postgres@127.0.0.1:5432/test", port: 5432 },
];

/** Waits until the session's reply has ended (the expiring run goes on to the reply's end), then closing aborts nothing. */
async function ended(runtime: ServiceRuntime, sessionId: string): Promise<void> {
  for (let i = 0; i < 400; i++) {
    const last = (await runtime.backend.events.read(sessionId, 0, 10_000)).at(-1)?.event;
    if (last?.type === "REPLY_END" && !(await runtime.status("local", sessionId)).running) return;
    await new Promise((r) => setTimeout(r, 25));
  }
}

async function events(backend: ServiceBackend, sessionId: string): Promise<AgentEvent[]> {
  return (await backend.events.read(sessionId, 0, 10_000)).map((logged) => logged.event);
}

for (const kind of kinds) {
  describe(`pause deadlines expire by themselves on ${kind.name}`, async () => {
    const missing = kind.port ? await missingService(kind.name, kind.port) : undefined;
    if (missing) {
      reportMissingService(missing);
      return;
    }
    const url = kind.url();
    const prefix = kind.name === "Redis" ? `${runName("dl")}:` : `${runName("dl")}_`;
    const calls = { count: 0 };
    const replica = async (onExpiry?: "approve") =>
      new ServiceRuntime({
        backend: await createBackend(url, { prefix }),
        agents: [
          {
            name: "main",
            model: conversationModel(),
            toolkit: [recordTool(undefined, calls)],
            approvers: {
              policies: [
                {
                  name: "records-expire",
                  tools: ["record"],
                  expiresAfterMs: 1,
                  ...(onExpiry ? { onExpiry } : {}),
                },
              ],
            },
          },
        ],
        // no timed sweep during the test: each sweep is called (or is the one a replica makes at start)
        sweepEveryMs: 3_600_000,
      });
    afterAll(() => dropBackend(url, prefix));

    /** A session paused on an ask with a deadline, by a replica that is then shut down. */
    async function pausedThenStopped(onExpiry?: "approve") {
      const first = await replica(onExpiry);
      const { sessionId } = await first.createSession("local");
      const run = await first.startReply("local", sessionId, [userMsg("record it")]);
      await run.done;
      const paused = await first.status("local", sessionId);
      expect(paused).toMatchObject({ running: false, waitingFor: "user_confirm" });
      const ask = decisionsIn(await events(first.backend, sessionId)).at(-1)!;
      expect(ask).toMatchObject({ outcome: "ask", policy: "records-expire" });
      await first.close();
      // the deadline passes while no replica runs (the store's clock judges: same machine here)
      while (Date.now() <= Date.parse(ask.expiresAt!) + 5) await new Promise((r) => setTimeout(r, 5));
      return sessionId;
    }

    it("after a restart, two replicas sweep at once: exactly one expires the ask, with one record, a denied result the model reads and the reply's end", async () => {
      const before = calls.count;
      const sessionId = await pausedThenStopped();
      const [a, b] = await Promise.all([replica(), replica()]);
      await Promise.all([a.sweeper.sweep(), b.sweeper.sweep(), a.sweeper.sweep(), b.sweeper.sweep()]);
      await ended(a, sessionId);
      await Promise.all([a.close(), b.close()]);

      const reader = await replica();
      const log = await events(reader.backend, sessionId);
      const expiries = decisionsIn(log).filter((r) => r.outcome === "expire");
      expect(expiries).toHaveLength(1);
      expect(expiries[0]).toMatchObject({ actor: "engine", channel: "engine", policy: "records-expire" });
      const denied = log.filter((e) => e.type === "TOOL_RESULT_END" && e.state === "denied");
      expect(denied).toHaveLength(1);
      expect(log.filter((e) => e.type === "USER_CONFIRM_RESULT")).toHaveLength(0);
      expect(log.at(-1)).toMatchObject({ type: "REPLY_END", finishedReason: "completed" });
      const messages = await reader.messages("local", sessionId);
      const result = messages.at(-1)!.content.find((block) => block.type === "tool_result");
      expect(JSON.stringify(result)).toContain("before it expired");
      expect(calls.count).toBe(before);
      // the index says it is handled: a later sweep changes nothing
      await reader.sweeper.sweep();
      expect(await events(reader.backend, sessionId)).toHaveLength(log.length);
      const index = await events(reader.backend, DEADLINE_LOG);
      expect(index.some((e) => e.type === "CUSTOM" && e.name === "pause_deadline_done")).toBe(true);
      await reader.close();
    });

    it("a policy's onExpiry approve runs the call as asked, once, answered by the deadline", async () => {
      const before = calls.count;
      const sessionId = await pausedThenStopped("approve");
      const [a, b] = await Promise.all([replica("approve"), replica("approve")]);
      await Promise.all([a.sweeper.sweep(), b.sweeper.sweep()]);
      await ended(a, sessionId);
      await Promise.all([a.close(), b.close()]);
      const reader = await replica("approve");
      const log = await events(reader.backend, sessionId);
      expect(decisionsIn(log).filter((r) => r.outcome === "expire")).toHaveLength(1);
      expect(log.filter((e) => e.type === "USER_CONFIRM_RESULT")).toMatchObject([
        { answeredBy: { name: "deadline", channel: "engine" } },
      ]);
      expect(log.at(-1)).toMatchObject({ type: "REPLY_END", finishedReason: "completed" });
      expect(calls.count).toBe(before + 1);
      await reader.close();
    });
  });
}
