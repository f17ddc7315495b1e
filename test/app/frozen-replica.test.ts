import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { type RunningServer, startServer } from "../../src/app/server/start-server.js";
import { foldEvents } from "../../src/event/index.js";
import { dropBackend } from "../state/drop-backend.js";
import { reportMissingService } from "../support/services.js";
import { type ChildServer, startChildServer } from "./child-server.js";
import { crashModel } from "./fixtures/agents.js";
import { follow } from "./follow-stream.js";
import { json } from "./helpers.js";
import { postJson as post, replicaBackends } from "./replica-backends.js";

const TTL = 1500;

/** Waits for `test` (checked every 50 ms), failing with `what` (and `seen()`) after `timeoutMs`. */
async function until(
  test: () => boolean | Promise<boolean>,
  what: string,
  seen: () => string,
  timeoutMs = 20_000,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await test())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}; ${seen()}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

const backends = await replicaBackends("frozen");

for (const backend of backends) {
  describe(`a replica frozen past its lease (SIGSTOP), on ${backend.name}: it writes nothing after another took over`, () => {
    if (backend.missing) {
      reportMissingService(backend.missing);
      return;
    }
    const dir = mkdtempSync(join(tmpdir(), "agentscope-frozen-"));
    const store = backend.store(dir);
    const prefix = backend.prefix;
    let b: RunningServer;
    let a: ChildServer | undefined;

    beforeAll(async () => {
      b = await startServer({
        config: { agents: [{ name: "main", model: crashModel() }], server: { recoverCheckMs: 100 } },
        store,
        port: 0,
        tokensEnv: "",
        withoutOptionalRoutes: true,
        backend: { prefix, lockTtlMs: TTL },
      });
    }, 30_000);
    afterEach(async () => {
      if (a?.process.signalCode === null) a.process.kill("SIGCONT");
      await a?.kill9();
    });
    afterAll(async () => {
      await b?.close();
      await dropBackend(store, prefix);
      rmSync(dir, { recursive: true, force: true });
    });

    it("B closes the reply once; A, woken, is fenced: no event after REPLY_END, the log folds to the stored Msg", async () => {
      a = await startChildServer(store, join(dir, "count.txt"), { prefix, lockTtlMs: TTL, crash: true });
      const { sessionId } = await json(post(a.url, "/v1/sessions", {}));
      const follower = follow(await fetch(`${b.url}/v1/sessions/${sessionId}/events`));
      try {
        expect(
          (await post(a.url, `/v1/sessions/${sessionId}/replies`, { text: "stream please" })).status,
        ).toBe(202);
        const child = a;
        const seen = () =>
          `the follower got ${follower.frames.map((f) => f.event).join(",")}; A printed: ${child.output()}`;
        await until(
          () => follower.frames.filter((f) => f.event === "TEXT_BLOCK_DELTA").length >= 5,
          "deltas from A",
          seen,
        );
        a.process.kill("SIGSTOP"); // a GC pause, a VM migration, CPU starvation: A stops mid-stream
        await until(() => follower.frames.some((f) => f.event === "REPLY_END"), "B to close the reply", seen);
        const closedAt = follower.frames.length;
        a.process.kill("SIGCONT"); // A wakes up and goes on where it was
        await until(
          () => /log warn \S+ .*(fenced|lost its session lock)/.test(child.output()),
          "A to stop",
          seen,
        );
        // A's late writes, had any been accepted, would reach B's follower within its poll
        await new Promise((resolve) => setTimeout(resolve, 1000));
        const frames = follower.frames;
        expect(frames.length).toBe(closedAt);
        expect(frames.map((f) => f.id)).toEqual(frames.map((_, i) => i + 1));
        expect(frames.filter((f) => f.event === "REPLY_END")).toHaveLength(1);
        expect(frames.at(-1)?.data).toMatchObject({ type: "REPLY_END", finishedReason: "interrupted" });
        const log = await b.runtime.backend.events.read(sessionId, 0, 10_000);
        expect(log.map((e) => e.seq)).toEqual(frames.map((f) => f.id));
        const { messages } = await json(fetch(`${b.url}/v1/sessions/${sessionId}/messages`));
        expect(foldEvents(log.map((e) => e.event))).toEqual(messages.at(-1));
        const status = await json(fetch(`${b.url}/v1/sessions/${sessionId}/status`));
        expect(status).toMatchObject({ running: false, lastEventId: frames.length });
        // and the session takes its next reply (A left no lease behind that blocks it)
        expect((await post(b.url, `/v1/sessions/${sessionId}/replies`, { text: "hi" })).status).toBe(202);
      } finally {
        await follower.close();
      }
    }, 60_000);
  });
}
