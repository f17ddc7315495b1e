import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, describe, expect, it, vi } from "vitest";
import { createBackend } from "../../src/app/server/backend/create-backend.js";
import type { ServiceBackend } from "../../src/app/server/backend/types.js";
import { parseServiceConfig } from "../../src/app/server/config/service-config.js";
import type { ServiceLogEntry } from "../../src/app/server/runtime/service-log.js";
import { ServiceRuntime } from "../../src/app/server/runtime/service-runtime.js";
import { Sweeper } from "../../src/app/server/runtime/sweeper.js";
import { foldEvents } from "../../src/event/index.js";
import { dropBackend } from "../state/drop-backend.js";
import { reportMissingService } from "../support/services.js";
import { type ChildServer, startChildServer } from "./child-server.js";
import { crashModel, recordTool, slowTool } from "./fixtures/agents.js";
import { json } from "./helpers.js";
import { replicaBackends } from "./replica-backends.js";

describe("Sweeper", () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it("sweeps at start, then every period, one sweep at a time; a failing job is reported and the others run", async () => {
    vi.useFakeTimers();
    const runs: string[] = [];
    const errors: string[] = [];
    let release!: () => void;
    const sweeper = new Sweeper(100, (job, error) => errors.push(`${job.name}: ${(error as Error).message}`));
    sweeper.register({
      name: "slow",
      run: () => {
        runs.push("slow");
        return new Promise<void>((resolve) => {
          release = resolve;
        });
      },
    });
    sweeper.register({
      name: "broken",
      run: async () => {
        runs.push("broken");
        throw new Error("no store");
      },
    });
    const first = sweeper.start();
    expect(runs).toEqual(["slow"]);
    await vi.advanceTimersByTimeAsync(350); // the first sweep still runs: no second one starts
    expect(runs).toEqual(["slow"]);
    release();
    await first;
    expect(runs).toEqual(["slow", "broken"]);
    expect(errors).toEqual(["broken: no store"]);
    await vi.advanceTimersByTimeAsync(100);
    expect(runs).toEqual(["slow", "broken", "slow"]);
    release();
    const stopped = sweeper.stop();
    await vi.advanceTimersByTimeAsync(0);
    await stopped;
    await vi.advanceTimersByTimeAsync(1000);
    // stopped while the second sweep ran: it ends after its current job, and no sweep follows
    expect(runs).toEqual(["slow", "broken", "slow"]);
  });

  it("refuses a period that is not a positive number, in code and in the config file", () => {
    expect(() => new Sweeper(0, () => {})).toThrow(/everyMs must be a positive finite number \(got 0\)/);
    expect(() => new Sweeper(Number.NaN, () => {})).toThrow(/got NaN/);
    const config = (sweepEveryMs: unknown) => ({
      agents: [{ name: "main", model: "openai:gpt-4o-mini" }],
      server: { sweepEveryMs },
    });
    expect(() => parseServiceConfig(config(10))).toThrow(/server\.sweepEveryMs/);
    expect(() => parseServiceConfig(config("5s"))).toThrow(/server\.sweepEveryMs/);
    expect(parseServiceConfig(config(2000)).server?.sweepEveryMs).toBe(2000);
  });

  it("a runtime on a backend without abandoned leases (memory), whose agents set no deadlines, has nothing to sweep", async () => {
    const runtime = new ServiceRuntime({
      backend: await createBackend("memory:"),
      agents: [{ name: "main", model: crashModel() }],
    });
    expect(runtime.sweeper.jobs).toEqual([]);
    await runtime.close();
  });
});

/** Waits for `test` (checked every 50 ms), failing with `what` after `timeoutMs`. */
async function until(test: () => Promise<boolean>, what: string, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await test())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

const TTL = 1500;
const backends = await replicaBackends("sweep");

for (const kind of backends) {
  describe(`the recovery sweeper on ${kind.name}: cut-off replies nobody watches are closed`, () => {
    if (kind.missing) {
      reportMissingService(kind.missing);
      return;
    }
    const dir = mkdtempSync(join(tmpdir(), "agentscope-sweep-"));
    const countFile = join(dir, "count.txt");
    const store = kind.store(dir);
    const prefix = kind.prefix;
    const children: ChildServer[] = [];
    const runtimes: ServiceRuntime[] = [];
    let reader: ServiceBackend | undefined;

    afterEach(async () => {
      await Promise.all(children.splice(0).map((child) => child.kill9()));
      await Promise.all(runtimes.splice(0).map((runtime) => runtime.close()));
    });
    afterAll(async () => {
      await reader?.close();
      await dropBackend(store, prefix);
      rmSync(dir, { recursive: true, force: true });
    });

    /** The store as a plain backend (no runtime: reading it recovers nothing). */
    const plain = async () => {
      reader ??= await createBackend(store, { prefix, lockTtlMs: TTL });
      return reader;
    };
    /** Replies started on a child replica, which is then killed once each has streamed. */
    async function cutOff(texts: string[], options: { sweepEveryMs?: number } = {}) {
      const a = await startChildServer(store, countFile, { prefix, lockTtlMs: TTL, crash: true, ...options });
      children.push(a);
      const post = (path: string, body: unknown) =>
        fetch(`${a.url}${path}`, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify(body),
        });
      const sessions: string[] = [];
      for (const text of texts) {
        const { sessionId } = await json(post("/v1/sessions", {}));
        expect((await post(`/v1/sessions/${sessionId}/replies`, { text })).status).toBe(202);
        sessions.push(sessionId);
      }
      const log = await plain();
      await until(
        async () =>
          (await Promise.all(sessions.map((id) => log.events.read(id, 0, 100)))).every((events) =>
            events.some((e) => e.event.type === "TEXT_BLOCK_DELTA" || e.event.type === "TOOL_RESULT_START"),
          ),
        "every reply to stream",
      );
      await a.kill9();
      return sessions;
    }
    /** A replica that nobody asks anything: only its sweeper works. */
    const replica = async (options: { resumeOnRecovery?: boolean; sweepEveryMs?: number } = {}) => {
      const logged: ServiceLogEntry[] = [];
      const runtime = new ServiceRuntime({
        backend: await createBackend(store, { prefix, lockTtlMs: TTL }),
        agents: [
          { name: "main", model: crashModel(), toolkit: [recordTool(countFile), slowTool(countFile)] },
        ],
        sweepEveryMs: options.sweepEveryMs ?? 100,
        ...(options.resumeOnRecovery ? { resumeOnRecovery: true } : {}),
        log: (entry) => logged.push(entry),
      });
      runtimes.push(runtime);
      return { runtime, logged };
    };
    const replyEnds = async (sessionId: string) =>
      (await (await plain()).events.read(sessionId, 0, 10_000)).filter((e) => e.event.type === "REPLY_END");
    /** The log ends the reply (one REPLY_END, interrupted) and folds to the stored Msg. */
    async function closedOnce(sessionId: string) {
      const log = await plain();
      const events = (await log.events.read(sessionId, 0, 10_000)).map((e) => e.event);
      expect(events.filter((e) => e.type === "REPLY_END")).toHaveLength(1);
      expect(events.at(-1)).toMatchObject({ type: "REPLY_END", finishedReason: "interrupted" });
      const stored = await log.store.load(sessionId);
      expect(foldEvents(events)).toEqual(stored?.state.context.at(-1));
      expect(stored?.state.replyContext).toBeUndefined();
    }

    it("after kill -9, three replicas racing close each cut-off reply once, with nobody following it", async () => {
      const sessions = await cutOff(["stream one", "stream two", "slow three", "stream four"]);
      const replicas = await Promise.all([replica(), replica(), replica()]);
      await until(
        async () => (await Promise.all(sessions.map(replyEnds))).every((ends) => ends.length > 0),
        "the sweepers to close every reply",
      );
      await new Promise((resolve) => setTimeout(resolve, 500)); // more sweeps: none closes again
      for (const id of sessions) await closedOnce(id);
      const closes = replicas.flatMap(({ logged }) => logged.filter((e) => e.message.startsWith("closed")));
      expect(closes.map((e) => e.sessionId).sort()).toEqual([...sessions].sort());
      expect(await (await plain()).locks.abandoned!(100)).toEqual([]);
    }, 60_000);

    it("with resumeOnRecovery the sweeping replica continues the reply (the model sees the interrupted result)", async () => {
      const [sessionId] = await cutOff(["slow lookup"]);
      await replica({ resumeOnRecovery: true });
      await until(async () => (await replyEnds(sessionId!)).length >= 2, "the continued reply to end");
      const ends = await replyEnds(sessionId!);
      expect(ends.map((e) => (e.event as { finishedReason: string }).finishedReason)).toEqual([
        "interrupted",
        "completed",
      ]);
      const stored = await (await plain()).store.load(sessionId!);
      const text = stored?.state.context.at(-1)?.content.find((b) => b.type === "text");
      expect(text).toMatchObject({ text: "The tool was interrupted, so I stopped." });
    }, 60_000);

    it("a restarted replica closes what its last life left cut off in its first sweep, at start", async () => {
      const sessions = await cutOff(["stream one", "stream two", "stream three"]);
      // the restart: the same service again, on the same store; its interval is far off, so only the
      // sweep at start can close them (on Redis once the dead leases expire, on one host at once)
      const restarted = await startChildServer(store, countFile, {
        prefix,
        lockTtlMs: TTL,
        crash: true,
        ...(kind.name === "Redis" ? {} : { sweepEveryMs: 600_000 }),
      });
      children.push(restarted);
      await until(
        async () => (await Promise.all(sessions.map(replyEnds))).every((ends) => ends.length > 0),
        "the restarted replica to close every reply",
      );
      for (const id of sessions) await closedOnce(id);
      // its log line comes after the close (and through a pipe): wait for it
      await until(
        async () => (restarted.output().match(/log info \S+ closed a cut-off reply/g) ?? []).length === 3,
        "the restarted replica to log the three closes",
      );
    }, 60_000);
  });
}
