import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { createApp } from "../../src/app/server/app.js";
import { createBackend } from "../../src/app/server/backend/create-backend.js";
import { ServiceRuntime } from "../../src/app/server/runtime/service-runtime.js";
import { AgentScopeClient } from "../../src/client/index.js";
import { decisionsOf, userConfirmResult } from "../../src/event/index.js";
import { dropBackend } from "../state/drop-backend.js";
import { missingService, reportMissingService, runName } from "../support/services.js";
import { conversationModel, recordTool } from "./fixtures/agents.js";
import { readSse } from "./helpers.js";

const dir = mkdtempSync(join(tmpdir(), "agentscope-decisions-route-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const kinds = [
  { name: "SQLite", url: () => `sqlite:${join(dir, `${runName("db")}.db`)}` },
  { name: "Redis", url: () => "redis://127.0.0.1:6379", port: 6379 },
  { name: "PostgreSQL", url: () => "postgres://postgres@127.0.0.1:5432/test", port: 5432 },
];

for (const kind of kinds) {
  describe(`GET /v1/sessions/:id/decisions on ${kind.name}`, async () => {
    const missing = kind.port ? await missingService(kind.name, kind.port) : undefined;
    if (missing) {
      reportMissingService(missing);
      return;
    }
    const url = kind.url();
    const prefix = kind.name === "Redis" ? `${runName("dec")}:` : `${runName("dec")}_`;
    const backend = await createBackend(url, { prefix });
    const calls = { count: 0 };
    const runtime = new ServiceRuntime({
      backend,
      agents: [{ name: "main", model: conversationModel(), toolkit: [recordTool(undefined, calls)] }],
    });
    const app = createApp(runtime, {
      tokens: new Map([
        ["t-alice", "alice"],
        ["t-mallory", "mallory"],
      ]),
    });
    const fetchApp: typeof fetch = (input, init) =>
      Promise.resolve(app.request(String(input).replace("http://service", ""), init));
    const client = (token: string) =>
      new AgentScopeClient({ baseUrl: "http://service", token, fetch: fetchApp });
    afterAll(async () => {
      await runtime.close();
      await dropBackend(url, prefix);
    });

    /** A session of alice's paused on `record`, and the call that asks. */
    async function paused() {
      const { sessionId } = await client("t-alice").createSession();
      const reply = await app.request(`/v1/sessions/${sessionId}/replies`, {
        method: "POST",
        headers: {
          authorization: "Bearer t-alice",
          "content-type": "application/json",
          accept: "text/event-stream",
        },
        body: JSON.stringify({ text: "record it" }),
      });
      const ask = (await readSse(reply)).frames.at(-1)!.data as { toolCalls: Array<{ id: string }> };
      return { sessionId, callId: ask.toolCalls[0]!.id };
    }

    const confirm = (sessionId: string, body: unknown, headers: Record<string, string> = {}) =>
      app.request(`/v1/sessions/${sessionId}/confirm`, {
        method: "POST",
        headers: { authorization: "Bearer t-alice", "content-type": "application/json", ...headers },
        body: JSON.stringify(body),
      });

    it("lists the ask and the approval, with the authenticated user and the channel; the client reads the same", async () => {
      const { sessionId, callId } = await paused();
      const answered = await confirm(
        sessionId,
        { answers: [{ toolCallId: callId, confirmed: true }] },
        { "agentscope-channel": "console" },
      );
      expect(answered.status).toBe(202);
      await expect.poll(async () => (await runtime.status("alice", sessionId)).running).toBe(false);

      const decisions = await client("t-alice").decisions(sessionId);
      expect(decisions).toEqual([
        expect.objectContaining({
          toolCallId: callId,
          toolName: "record",
          outcome: "ask",
          input: '{"note":"hello"}',
          actor: "engine",
          channel: "engine",
          mode: "default",
        }),
        expect.objectContaining({
          toolCallId: callId,
          outcome: "approve",
          actor: "alice",
          channel: "console",
        }),
      ]);
      // The same records the stored reply keeps (the log and the state agree).
      expect(decisionsOf(await runtime.messages("alice", sessionId))).toEqual(decisions);
      expect(calls.count).toBeGreaterThan(0);
    });

    it("a client cannot name who answered: the body refuses answeredBy, and the runtime puts the user in its place", async () => {
      const { sessionId, callId } = await paused();
      const toolCall = { id: callId, name: "record", input: '{"note":"hello"}' };
      const smuggled = await confirm(sessionId, {
        confirmResults: [{ confirmed: false, toolCall }],
        answeredBy: { name: "the-ceo", channel: "code" },
      });
      expect(smuggled.status).toBe(400);
      expect(((await smuggled.json()) as { error: { message: string } }).error.message).toContain(
        "answeredBy",
      );

      // An input event built elsewhere (AG-UI's resume) that names someone: the runtime's user wins.
      const replyId = await runtime.replyIdOf("alice", sessionId);
      const handle = await runtime.answer(
        "alice",
        sessionId,
        userConfirmResult({
          replyId,
          confirmResults: [{ confirmed: false, toolCall }],
          answeredBy: { name: "the-ceo", channel: "code" },
        }),
        { via: "agui" },
      );
      await handle.done;
      const denied = (await client("t-alice").decisions(sessionId)).at(-1);
      expect(denied).toMatchObject({ outcome: "deny", actor: "alice", channel: "agui" });
    });

    it("refuses an unknown channel (400, naming the header) and another user's session (404)", async () => {
      const { sessionId, callId } = await paused();
      const bad = await confirm(
        sessionId,
        { answers: [{ toolCallId: callId, confirmed: true }] },
        { "agentscope-channel": "engine" },
      );
      expect(bad.status).toBe(400);
      expect(((await bad.json()) as { error: { message: string } }).error.message).toContain(
        "AgentScope-Channel",
      );
      const other = await app.request(`/v1/sessions/${sessionId}/decisions`, {
        headers: { authorization: "Bearer t-mallory" },
      });
      expect(other.status).toBe(404);
      // nothing was decided by the refused request: only the ask is on record
      expect((await client("t-alice").decisions(sessionId)).map((r) => r.outcome)).toEqual(["ask"]);
    });
  });
}
