import { afterEach, expect, it } from "vitest";
import { createApp } from "../../src/app/server/app.js";
import { memoryBackend } from "../../src/app/server/backend/memory-backend.js";
import { ServiceRuntime, type ServiceRuntimeOptions } from "../../src/app/server/runtime/service-runtime.js";
import type { Msg } from "../../src/message/index.js";
import type { ChatModel, ChatOptions } from "../../src/model/core.js";
import { ScriptedModel } from "../../src/testing/index.js";

const runtimes: ServiceRuntime[] = [];
afterEach(async () => {
  await Promise.all(runtimes.splice(0).map((r) => r.close()));
});

/** A model that answers only once `open()` is called, so runs hold their slots until then. */
function gatedModel() {
  let open!: () => void;
  const gate = new Promise<void>((resolve) => {
    open = resolve;
  });
  const base = new ScriptedModel([]);
  const model: ChatModel = {
    name: "gated",
    provider: "scripted",
    contextSize: base.contextSize,
    countTokens: (messages, tools) => base.countTokens(messages, tools),
    async *stream(messages: Msg[], options?: ChatOptions) {
      await gate;
      yield* new ScriptedModel([{ text: "done" }]).stream(messages, options);
    },
  };
  return { model, open };
}

function setup(options: Partial<ServiceRuntimeOptions>) {
  const gated = gatedModel();
  const runtime = new ServiceRuntime({
    backend: memoryBackend(),
    agents: [{ name: "main", model: gated.model }],
    ...options,
  });
  runtimes.push(runtime);
  const app = createApp(runtime, {
    tokens: new Map([
      ["t-alice", "alice"],
      ["t-bob", "bob"],
    ]),
  });
  const call = (token: string, path: string, body: unknown = {}) =>
    app.request(path, {
      method: "POST",
      headers: { "content-type": "application/json", authorization: `Bearer ${token}` },
      body: JSON.stringify(body),
    });
  const sessions = async (token: string, n: number) =>
    Promise.all(
      Array.from(
        { length: n },
        async () => ((await (await call(token, "/v1/sessions")).json()) as { sessionId: string }).sessionId,
      ),
    );
  const reply = (token: string, id: string) => call(token, `/v1/sessions/${id}/replies`, { text: "go" });
  return { open: gated.open, sessions, reply, runtime };
}

it("a burst from two users: each gets its own share, the rest get 429 with Retry-After", async () => {
  const t = setup({ maxConcurrentRuns: 6, limits: { maxRunsPerUser: 3 } });
  const [alice, bob] = await Promise.all([t.sessions("t-alice", 10), t.sessions("t-bob", 3)]);
  const responses = await Promise.all([
    ...alice.map((id) => t.reply("t-alice", id)),
    ...bob.map((id) => t.reply("t-bob", id)),
  ]);
  const statuses = responses.map((r) => r.status);
  expect(statuses.slice(0, 10).filter((s) => s === 202)).toHaveLength(3);
  expect(statuses.slice(0, 10).filter((s) => s === 429)).toHaveLength(7);
  expect(statuses.slice(10)).toEqual([202, 202, 202]);
  const refused = responses.find((r) => r.status === 429)!;
  expect(refused.headers.get("retry-after")).toBe("1");
  expect(((await refused.json()) as { error: { message: string } }).error.message).toContain("per-user");
  t.open();
});

it("the global limit holds in a burst too (the check and the count are one step)", async () => {
  const t = setup({ maxConcurrentRuns: 4, limits: { maxRunsPerUser: 4 } });
  const [alice, bob] = await Promise.all([t.sessions("t-alice", 8), t.sessions("t-bob", 8)]);
  const responses = await Promise.all(
    [...alice, ...bob].map((id, i) => t.reply(i < 8 ? "t-alice" : "t-bob", id)),
  );
  expect(responses.filter((r) => r.status === 202)).toHaveLength(4);
  expect(responses.filter((r) => r.status === 429).every((r) => r.headers.get("retry-after") === "1")).toBe(
    true,
  );
  t.open();
});

it("with queue: true a request over the limit waits for a slot instead of failing", async () => {
  const t = setup({
    maxConcurrentRuns: 10,
    limits: { maxRunsPerUser: 1, queue: true, queueTimeoutMs: 20_000 },
  });
  const [first, second] = await t.sessions("t-alice", 2);
  const one = await t.reply("t-alice", first!);
  expect(one.status).toBe(202);
  const waiting = Promise.resolve(t.reply("t-alice", second!));
  let settled = false;
  void waiting.then(() => {
    settled = true;
  });
  await new Promise((resolve) => setImmediate(resolve));
  expect(settled).toBe(false);
  t.open();
  expect((await waiting).status).toBe(202);
});

it("a queued request that waits too long gets 429 with Retry-After", async () => {
  const t = setup({ maxConcurrentRuns: 10, limits: { maxRunsPerUser: 1, queue: true, queueTimeoutMs: 50 } });
  const [first, second] = await t.sessions("t-alice", 2);
  expect((await t.reply("t-alice", first!)).status).toBe(202);
  const late = await t.reply("t-alice", second!);
  expect(late.status).toBe(429);
  expect(late.headers.get("retry-after")).toBe("1");
  t.open();
});
