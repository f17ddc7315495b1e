import { afterAll, describe, expect, it } from "vitest";
import { createApp } from "../../src/app/server/app.js";
import { createBackend } from "../../src/app/server/backend/create-backend.js";
import { attachBudget } from "../../src/app/server/config/build-budget.js";
import { budgetRoutes } from "../../src/app/server/http/budget-routes.js";
import { ServiceRuntime } from "../../src/app/server/runtime/service-runtime.js";
import { AgentScopeClient } from "../../src/client/index.js";
import type { Msg } from "../../src/message/index.js";
import type { ChatModel, ChatOptions } from "../../src/model/index.js";
import type { SpendLimit } from "../../src/protocol/index.js";
import { ScriptedModel } from "../../src/testing/index.js";
import { readSse } from "./helpers.js";

/** Answers every message with text, using 100 tokens. */
const textModel: ChatModel = {
  name: "text",
  provider: "scripted",
  contextSize: 100_000,
  countTokens: () => 0,
  stream: (messages: Msg[], opts?: ChatOptions) =>
    new ScriptedModel([{ text: "ok", usage: { inputTokens: 60, outputTokens: 40 } }]).stream(messages, opts),
};

describe("GET /v1/budget", async () => {
  const backend = await createBackend("memory:");
  const limits: SpendLimit[] = [{ scope: "user", period: "day", unit: "tokens", hard: 150, soft: 100 }];
  const agents = [{ name: "main", model: textModel }];
  const budget = attachBudget(agents, { limits }, backend.sessions);
  const runtime = new ServiceRuntime({ backend, agents });
  const app = createApp(runtime, {
    tokens: new Map([
      ["t-alice", "alice"],
      ["t-bob", "bob"],
    ]),
    mounts: [budgetRoutes(budget)],
  });
  const fetchApp: typeof fetch = (input, init) =>
    Promise.resolve(app.request(String(input).replace("http://service", ""), init));
  const client = (token: string) =>
    new AgentScopeClient({ baseUrl: "http://service", token, fetch: fetchApp });
  afterAll(() => runtime.close());

  const reply = async (sessionId: string) => {
    const response = await app.request(`/v1/sessions/${sessionId}/replies`, {
      method: "POST",
      headers: {
        authorization: "Bearer t-alice",
        "content-type": "application/json",
        accept: "text/event-stream",
      },
      body: JSON.stringify({ text: "hello" }),
    });
    return (await readSse(response)).frames.map(
      (frame) => frame.data as { type: string; metadata?: unknown },
    );
  };

  it("the session owner's spend counts against their daily budget, and the client reads what is left", async () => {
    const alice = client("t-alice");
    expect(await alice.budget()).toEqual({
      user: "alice",
      lines: [
        { scope: "user", period: "day", unit: "tokens", spent: 0, soft: 100, hard: 150, remaining: 150 },
      ],
    });
    const { sessionId } = await alice.createSession();
    await reply(sessionId);
    expect((await alice.budget()).lines[0]).toMatchObject({ spent: 100, remaining: 50 });
    // Another session of the same user draws from the same day: 200 ≥ 150 after its reply.
    const other = await alice.createSession();
    await reply(other.sessionId);
    const stopped = await reply(other.sessionId);
    const stop = stopped.find((event) => event.type === "REQUEST_STOP");
    expect(stop?.metadata).toMatchObject({ budgetStop: { kind: "hard_limit", limit: limits[0] } });
    expect((await alice.budget()).lines[0]).toMatchObject({ spent: 200, remaining: 0 });
    // Bob's budget is his own.
    expect((await client("t-bob").budget()).lines[0]).toMatchObject({ spent: 0, remaining: 150 });
  });
});
