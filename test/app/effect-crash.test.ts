import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { type RunningServer, startServer } from "../../src/app/server/start-server.js";
import { type AgentEvent, foldEvents } from "../../src/event/index.js";
import { dropBackend } from "../state/drop-backend.js";
import { reportMissingService } from "../support/services.js";
import { type ChildServer, startChildServer } from "./child-server.js";
import { crashModel, effectTool, recordTool, slowTool } from "./fixtures/agents.js";
import { follow } from "./follow-stream.js";
import { type Frame, json, sleep } from "./helpers.js";
import { postJson as post, replicaBackends } from "./replica-backends.js";

// kill -9 of a service replica while an effect (a tool that is not read-only) runs: the replica that
// recovers the session does not run it again unasked; an idempotent tool runs again with its key.

const backends = await replicaBackends("effect");

const count = (type: string, n: number) => (frames: Frame[]) =>
  frames.filter((f) => f.event === type).length >= n;

for (const backend of backends) {
  describe(`kill -9 while an effect runs, on ${backend.name}`, () => {
    if (backend.missing) {
      reportMissingService(backend.missing);
      return;
    }
    const dir = mkdtempSync(join(tmpdir(), "agentscope-effect-"));
    const countFile = join(dir, "count.txt");
    const store = backend.store(dir);
    const prefix = backend.prefix;
    let b: RunningServer;
    let a: ChildServer | undefined;
    const streams: Array<{ close(): Promise<void> }> = [];

    beforeAll(async () => {
      b = await startServer({
        config: {
          agents: [
            {
              name: "main",
              model: crashModel(),
              tools: [
                recordTool(countFile),
                slowTool(countFile),
                effectTool(countFile, "pay"),
                effectTool(countFile, "charge"),
              ],
            },
          ],
          server: { recoverCheckMs: 100 },
        },
        store,
        port: 0,
        tokensEnv: "",
        withoutOptionalRoutes: true,
        backend: { prefix, lockTtlMs: 1500 },
      });
    }, 30_000);
    afterEach(async () => {
      await Promise.all(streams.splice(0).map((s) => s.close()));
      await a?.kill9();
    });
    afterAll(async () => {
      await b?.close();
      await dropBackend(store, prefix);
      rmSync(dir, { recursive: true, force: true });
    });

    const runs = () => readFileSync(countFile, "utf8").trim().split("\n");

    /** A reply on child A whose effect is approved and started there; then A is killed. */
    async function killWhileEffectRuns(text: string) {
      rmSync(countFile, { force: true });
      a = await startChildServer(store, countFile, { prefix, lockTtlMs: 1500, crash: true });
      const { sessionId } = await json(post(a.url, "/v1/sessions", {}));
      const follower = follow(await fetch(`${b.url}/v1/sessions/${sessionId}/events`));
      streams.push(follower);
      expect((await post(a.url, `/v1/sessions/${sessionId}/replies`, { text })).status).toBe(202);
      const asked = await follower.until(count("REQUIRE_USER_CONFIRM", 1));
      const callId = (
        asked.find((f) => f.event === "REQUIRE_USER_CONFIRM")!.data as { toolCalls: Array<{ id: string }> }
      ).toolCalls[0]!.id;
      const approved = await post(a.url, `/v1/sessions/${sessionId}/confirm`, {
        answers: [{ toolCallId: callId, confirmed: true }],
      });
      expect(approved.status).toBe(202);
      // The tool writes its line only once its effect is stored: the kill lands mid-effect.
      for (let i = 0; i < 200 && !readFileSync(countFile, { encoding: "utf8", flag: "a+" }).trim(); i++)
        await sleep(25);
      expect(runs()).toHaveLength(1);
      await a.kill9();
      return { sessionId, follower, firstRun: runs()[0]! };
    }

    async function foldsToStored(sessionId: string, frames: Frame[]) {
      const events = frames.map((f) => f.data as AgentEvent);
      const { messages } = await json(fetch(`${b.url}/v1/sessions/${sessionId}/messages`));
      expect(foldEvents(events)).toEqual(messages.at(-1));
    }

    it("an effect that is not idempotent is asked about again (outcome unknown); approved, it runs with the same key", async () => {
      const { sessionId, follower, firstRun } = await killWhileEffectRuns("pay now");
      const frames = await follower.until(count("REQUIRE_USER_CONFIRM", 2));
      const ask = frames.filter((f) => f.event === "REQUIRE_USER_CONFIRM").at(-1)!.data as {
        toolCalls: Array<{ id: string; name: string; reason: string }>;
      };
      expect(ask.toolCalls[0]).toMatchObject({ name: "pay" });
      expect(ask.toolCalls[0]!.reason).toContain("outcome of pay");
      expect(frames.map((f) => f.event)).not.toContain("REPLY_END");
      const status = await json(fetch(`${b.url}/v1/sessions/${sessionId}/status`));
      expect(status).toMatchObject({ running: false, waitingFor: "user_confirm" });
      expect(runs()).toEqual([firstRun]);
      const { decisions } = await json(fetch(`${b.url}/v1/sessions/${sessionId}/decisions`));
      expect(decisions.find((r: { outcome: string }) => r.outcome === "outcome_unknown")).toMatchObject({
        resolution: "ask",
        retryCallId: ask.toolCalls[0]!.id,
      });

      const approved = await post(b.url, `/v1/sessions/${sessionId}/confirm`, {
        answers: [{ toolCallId: ask.toolCalls[0]!.id, confirmed: true }],
      });
      expect(approved.status).toBe(202);
      const done = await follower.until(count("REPLY_END", 1));
      expect(done.at(-1)?.data).toMatchObject({ type: "REPLY_END", finishedReason: "completed" });
      expect(runs()).toEqual([firstRun, firstRun]);
      await foldsToStored(sessionId, done);
    }, 60_000);

    it("an idempotent effect is run again by the recovering replica with the same key, unasked", async () => {
      const { sessionId, follower, firstRun } = await killWhileEffectRuns("charge now");
      const done = await follower.until(count("REPLY_END", 1));
      expect(done.at(-1)?.data).toMatchObject({ type: "REPLY_END", finishedReason: "completed" });
      expect(runs()).toEqual([firstRun, firstRun]);
      const { decisions } = await json(fetch(`${b.url}/v1/sessions/${sessionId}/decisions`));
      const unknown = decisions.find((r: { outcome: string }) => r.outcome === "outcome_unknown");
      expect(unknown).toMatchObject({ toolName: "charge", resolution: "retry" });
      expect(decisions.at(-1)).toMatchObject({
        outcome: "approve",
        actor: "runtime",
        toolCallId: unknown.retryCallId,
      });
      await foldsToStored(sessionId, done);
    }, 60_000);
  });
}
