import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { createApp } from "../../src/app/server/app.js";
import { createBackend } from "../../src/app/server/backend/create-backend.js";
import type { ServiceBackend } from "../../src/app/server/backend/types.js";
import { ServiceRuntime } from "../../src/app/server/runtime/service-runtime.js";
import { AgentScopeClient } from "../../src/client/index.js";
import { dropBackend } from "../state/drop-backend.js";
import { missingService, reportMissingService, runName } from "../support/services.js";
import { conversationModel, recordTool } from "./fixtures/agents.js";

const dir = mkdtempSync(join(tmpdir(), "agentscope-idempotency-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const kinds = [
  { name: "SQLite", url: () => `sqlite:${join(dir, `${runName("db")}.db`)}` },
  { name: "Redis", url: () => "redis://127.0.0.1:6379", port: 6379 },
  { name: "PostgreSQL", url: () => "postgres://postgres@127.0.0.1:5432/test", port: 5432 },
];

for (const kind of kinds) {
  describe(`Idempotency-Key on ${kind.name}`, async () => {
    const missing = kind.port ? await missingService(kind.name, kind.port) : undefined;
    if (missing) {
      reportMissingService(missing);
      return;
    }
    const url = kind.url();
    const prefix = kind.name === "Redis" ? `${runName("idem")}:` : `${runName("idem")}_`;
    const calls = { count: 0 };
    const runtimes: ServiceRuntime[] = [];
    /** A replica: its own backend connection and runtime on the shared store. */
    const replica = async () => {
      const backend: ServiceBackend = await createBackend(url, { prefix });
      const runtime = new ServiceRuntime({
        backend,
        agents: [{ name: "main", model: conversationModel(), toolkit: [recordTool(undefined, calls)] }],
      });
      runtimes.push(runtime);
      return { runtime, app: createApp(runtime) };
    };
    const a = await replica();
    const b = await replica();
    afterAll(async () => {
      await Promise.all(runtimes.map((r) => r.close()));
      await dropBackend(url, prefix);
    });

    const post = (app: typeof a.app, path: string, body: unknown, key?: string) =>
      app.request(path, {
        method: "POST",
        headers: { "content-type": "application/json", ...(key ? { "idempotency-key": key } : {}) },
        body: JSON.stringify(body),
      });
    const started = async (response: Response) => {
      expect(response.status).toBe(202);
      return (await response.json()) as { replyId: string; after: number };
    };
    const replyStarts = async (sessionId: string) =>
      (await a.runtime.backend.events.read(sessionId, 0, 1000)).filter((l) => l.event.type === "REPLY_START")
        .length;
    const idle = (sessionId: string) =>
      expect.poll(async () => (await a.runtime.status("local", sessionId)).running).toBe(false);

    it("the same key twice starts one reply, on one replica or two at once; the repeat gets the first answer", async () => {
      const { sessionId } = await a.runtime.createSession("local");
      const path = `/v1/sessions/${sessionId}/replies`;
      const answers = await Promise.all([
        post(a.app, path, { text: "record it" }, "k-1"),
        post(b.app, path, { text: "record it" }, "k-1"),
      ]);
      // Each is the first answer, or (while the first run still held the session) run_in_progress.
      const accepted = answers.filter((r) => r.status === 202);
      expect(accepted.length).toBeGreaterThan(0);
      for (const r of answers) if (r.status !== 202) expect(r.status).toBe(409);
      const bodies = await Promise.all(accepted.map(started));
      const first = bodies[0]!;
      for (const body of bodies) expect(body).toEqual(first);
      await idle(sessionId);
      const again = await started(await post(b.app, path, { text: "record it" }, "k-1"));
      expect(again).toEqual(first);
      expect(await replyStarts(sessionId)).toBe(1);
      expect((await a.runtime.messages("local", sessionId)).filter((m) => m.role === "user")).toHaveLength(1);

      // another key is another request: it is refused as usual (a call waits for its answer)
      const other = await post(a.app, path, { text: "again" }, "k-2");
      expect(other.status).toBe(409);
    });

    it("a confirmation repeated with its key runs the tool once; without a key the repeat is refused", async () => {
      const { sessionId } = await a.runtime.createSession("local");
      await idle(sessionId);
      await started(await post(a.app, `/v1/sessions/${sessionId}/replies`, { text: "record it" }));
      await idle(sessionId);
      const callId = (await a.runtime.status("local", sessionId)).pendingToolCalls[0]!.id;
      const before = calls.count;
      const body = { answers: [{ toolCallId: callId, confirmed: true }] };
      const first = await started(await post(a.app, `/v1/sessions/${sessionId}/confirm`, body, "c-1"));
      await idle(sessionId);
      const repeat = await started(await post(b.app, `/v1/sessions/${sessionId}/confirm`, body, "c-1"));
      expect(repeat).toEqual(first);
      expect(calls.count).toBe(before + 1);
      const unkeyed = await post(b.app, `/v1/sessions/${sessionId}/confirm`, body);
      expect(unkeyed.status).toBe(409);
      expect(calls.count).toBe(before + 1);
    });

    it("the typed client sends a key and retries a write whose answer was lost: one reply", async () => {
      const { sessionId } = await a.runtime.createSession("local");
      const keys: string[] = [];
      let dropped = false;
      const lossy: typeof fetch = async (input, init) => {
        const headers = new Headers(init?.headers);
        if (init?.method === "POST") keys.push(headers.get("idempotency-key") ?? "");
        const response = await a.app.request(String(input).replace("http://service", ""), init);
        if (init?.method === "POST" && !dropped) {
          dropped = true;
          throw new TypeError("socket hang up"); // the service got it; its answer did not arrive
        }
        return response;
      };
      const client = new AgentScopeClient({ baseUrl: "http://service", fetch: lossy });
      const events = await client.send(sessionId, "record it").collect();
      expect(events.at(-1)?.type).toBe("REQUIRE_USER_CONFIRM");
      expect(keys).toHaveLength(2);
      expect(keys[0]).toMatch(/^[\w-]{32,36}$/);
      expect(keys[1]).toBe(keys[0]);
      expect(await replyStarts(sessionId)).toBe(1);
    });

    it("an interrupt repeated with its key ends the paused reply once; the repeat gets the first answer", async () => {
      const { sessionId } = await a.runtime.createSession("local");
      await started(await post(a.app, `/v1/sessions/${sessionId}/replies`, { text: "record it" }));
      await idle(sessionId);
      const path = `/v1/sessions/${sessionId}/interrupt`;
      const first = await post(a.app, path, { reason: "stop" }, "i-1");
      expect(first.status).toBe(202);
      const answer = await first.json();
      expect(answer).toMatchObject({ was: "paused" });
      await idle(sessionId);
      const repeat = await post(b.app, path, { reason: "stop" }, "i-1");
      expect(repeat.status).toBe(202);
      expect(await repeat.json()).toEqual(answer);
      const ends = (await a.runtime.backend.events.read(sessionId, 0, 1000)).filter(
        (l) => l.event.type === "USER_INTERRUPT",
      );
      expect(ends).toHaveLength(1);
      // Without the key, a second interrupt finds nothing to interrupt.
      expect((await post(b.app, path, { reason: "stop" })).status).toBe(409);
    });

    it("the typed client sends the same key again after a 503 (and on interrupt): one effect", async () => {
      const { sessionId } = await a.runtime.createSession("local");
      const keys: string[] = [];
      let refused = 0;
      const busy: typeof fetch = async (input, init) => {
        const headers = new Headers(init?.headers);
        if (init?.method === "POST") keys.push(headers.get("idempotency-key") ?? "");
        if (init?.method === "POST" && refused < 1) {
          refused += 1;
          return new Response('{"error":{"type":"unavailable","message":"shutting down"}}', {
            status: 503,
            headers: { "content-type": "application/json", "retry-after": "0" },
          });
        }
        return a.app.request(String(input).replace("http://service", ""), init);
      };
      const client = new AgentScopeClient({ baseUrl: "http://service", fetch: busy });
      const events = await client.send(sessionId, "record it").collect();
      expect(events.at(-1)?.type).toBe("REQUIRE_USER_CONFIRM");
      expect(keys).toHaveLength(2);
      expect(keys[1]).toBe(keys[0]);
      expect(await replyStarts(sessionId)).toBe(1);
      await idle(sessionId);
      keys.length = 0;
      expect(await client.interrupt(sessionId)).toMatchObject({ was: "paused" });
      expect(keys).toHaveLength(1);
      expect(keys[0]).toMatch(/^[\w-]{32,36}$/);
    });

    it("refuses a key that is not 1 to 200 visible characters (400 naming the header)", async () => {
      const { sessionId } = await a.runtime.createSession("local");
      const bad = await post(a.app, `/v1/sessions/${sessionId}/replies`, { text: "x" }, "has space");
      expect(bad.status).toBe(400);
      expect(((await bad.json()) as { error: { message: string } }).error.message).toContain(
        "Idempotency-Key",
      );
    });
  });
}
