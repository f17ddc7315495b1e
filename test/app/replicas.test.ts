import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { RunningServer } from "../../src/app/server/start-server.js";
import { startServer } from "../../src/app/server/start-server.js";
import { dropBackend } from "../state/drop-backend.js";
import { missingService, reportMissingService, runName } from "../support/services.js";
import { conversationModel, recordTool } from "./fixtures/agents.js";
import { isType, json, readSse, sleep } from "./helpers.js";

const backends = [
  { name: "Redis", url: "redis://127.0.0.1:6379", port: 6379, prefix: () => `${runName("svc")}:` },
  {
    name: "PostgreSQL",
    url: "postgres://postgres@127.0.0.1:5432/test",
    port: 5432,
    prefix: () => `${runName("svc")}_`,
  },
];

const missing = Object.fromEntries(
  await Promise.all(backends.map(async (b) => [b.name, await missingService(b.name, b.port)] as const)),
);

for (const backend of backends) {
  describe(`two replicas on one ${backend.name}`, () => {
    if (missing[backend.name]) {
      reportMissingService(missing[backend.name]!);
      return;
    }
    let a: RunningServer;
    let b: RunningServer;
    const calls = { count: 0 };
    const prefix = backend.prefix();
    beforeAll(async () => {
      const replica = () =>
        startServer({
          config: {
            agents: [
              {
                name: "main",
                model: conversationModel({ delayMs: 25 }),
                tools: [recordTool(undefined, calls)],
              },
            ],
          },
          store: backend.url,
          port: 0,
          tokensEnv: "",
          withoutOptionalRoutes: true,
          backend: { prefix },
        });
      a = await replica();
      b = await replica();
    });
    afterAll(async () => {
      await Promise.all([a?.close(), b?.close()]);
      await dropBackend(backend.url, prefix);
    });

    const post = (server: RunningServer, path: string, body: unknown) =>
      fetch(`${server.url}${path}`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify(body),
      });

    it("the reply runs on A while the stream is on B: B streams every event in order; a start on B meanwhile gets 409", async () => {
      const { sessionId } = await json(post(a, "/v1/sessions", {}));
      const onB = await fetch(`${b.url}/v1/sessions/${sessionId}/events`, {
        headers: { accept: "text/event-stream" },
      });
      const streamed = readSse(onB, isType("REPLY_END"), 15_000);
      const started = await post(a, `/v1/sessions/${sessionId}/replies`, { text: "hi" });
      expect(started.status).toBe(202);
      const busy = await post(b, `/v1/sessions/${sessionId}/replies`, { text: "again" });
      expect(busy.status).toBe(409);
      let status = await json(fetch(`${b.url}/v1/sessions/${sessionId}/status`));
      for (let i = 0; status.waitingFor === undefined && i < 200; i++) {
        await sleep(20);
        status = await json(fetch(`${b.url}/v1/sessions/${sessionId}/status`));
      }
      const approved = await post(a, `/v1/sessions/${sessionId}/confirm`, {
        answers: [{ toolCallId: status.pendingToolCalls[0].id, confirmed: true }],
      });
      expect(approved.status).toBe(202);
      const frames = (await streamed).frames;
      expect(frames.map((f) => f.id)).toEqual(frames.map((_, i) => i + 1));
      expect(frames.at(-1)?.data).toMatchObject({ type: "REPLY_END", finishedReason: "completed" });
      const onA = await fetch(`${a.url}/v1/sessions/${sessionId}/events?after=0`);
      const logged = (await readSse(onA, isType("REPLY_END"))).frames;
      expect(frames.map((f) => f.data)).toEqual(logged.map((f) => f.data));
      expect(calls.count).toBe(1);
    });

    it("an interrupt sent to B stops the reply running on A", async () => {
      const { sessionId } = await json(post(a, "/v1/sessions", {}));
      const run = await json(post(a, `/v1/sessions/${sessionId}/replies`, { text: "hi" }));
      await sleep(60);
      expect(await json(post(b, `/v1/sessions/${sessionId}/interrupt`, { reason: "from B" }))).toMatchObject({
        was: "running",
      });
      const onB = await fetch(`${b.url}/v1/sessions/${sessionId}/events?after=${run.after}`);
      const frames = (await readSse(onB, isType("REPLY_END"), 10_000)).frames;
      expect(frames.at(-1)?.data).toMatchObject({ type: "REPLY_END", finishedReason: "interrupted" });
    });
  });
}
