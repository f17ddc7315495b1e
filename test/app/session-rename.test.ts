import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { startServer } from "../../src/app/server/start-server.js";
import { dropBackend } from "../state/drop-backend.js";
import { missingService, reportMissingService, runName } from "../support/services.js";
import { conversationModel } from "./fixtures/agents.js";
import { json } from "./helpers.js";

const dir = mkdtempSync(join(tmpdir(), "agentscope-rename-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

const TOKENS = "tok-a:alice,tok-b:bob";

/** A real service on `store` with two users; `close` stops it (the store is kept). */
async function serve(store: string, prefix?: string) {
  const server = await startServer({
    config: { agents: [{ name: "main", model: conversationModel() }] },
    store,
    port: 0,
    tokensEnv: TOKENS,
    withoutOptionalRoutes: true,
    ...(prefix ? { backend: { prefix } } : {}),
  });
  let closed = false;
  const close = async () => {
    if (!closed) await server.close();
    closed = true;
  };
  cleanups.push(close);
  const call = (method: string, path: string, token: string, body?: unknown, type = "application/json") =>
    fetch(`${server.url}${path}`, {
      method,
      headers: {
        authorization: `Bearer ${token}`,
        ...(body === undefined ? {} : { "content-type": type }),
      },
      ...(body === undefined ? {} : { body: typeof body === "string" ? body : JSON.stringify(body) }),
    });
  return { server, call, close };
}

type Call = Awaited<ReturnType<typeof serve>>["call"];

async function createSession(call: Call, title?: string): Promise<string> {
  const response = await call("POST", "/v1/sessions", "tok-a", title === undefined ? {} : { title });
  expect(response.status).toBe(201);
  return (await response.json()).sessionId;
}

/** The title as GET /v1/sessions/:id and GET /v1/sessions report it. */
async function titles(call: Call, sessionId: string) {
  const one = await json(call("GET", `/v1/sessions/${sessionId}`, "tok-a"));
  const list = await json(call("GET", "/v1/sessions", "tok-a"));
  const listed = list.sessions.find((s: { sessionId: string }) => s.sessionId === sessionId);
  return { get: one.title, list: listed?.title };
}

describe("PATCH /v1/sessions/:id renames a session", () => {
  it("sets the title, returns the record, and GET and the list report it", async () => {
    const { call } = await serve("memory:");
    const sessionId = await createSession(call, "first");
    const response = await call("PATCH", `/v1/sessions/${sessionId}`, "tok-a", { title: "Groceries" });
    expect(response.status).toBe(200);
    expect(await response.json()).toMatchObject({
      sessionId,
      owner: "alice",
      agent: "main",
      title: "Groceries",
    });
    expect(await titles(call, sessionId)).toEqual({ get: "Groceries", list: "Groceries" });

    const untitled = await createSession(call);
    await call("PATCH", `/v1/sessions/${untitled}`, "tok-a", { title: "Named later" });
    expect(await titles(call, untitled)).toEqual({ get: "Named later", list: "Named later" });
  });

  it("rejects a missing, empty, blank, too long or non-string title and extra fields with a 400 naming the field", async () => {
    const { call } = await serve("memory:");
    const sessionId = await createSession(call, "kept");
    for (const body of [{}, { title: "" }, { title: "   " }, { title: "x".repeat(201) }, { title: 7 }]) {
      const response = await call("PATCH", `/v1/sessions/${sessionId}`, "tok-a", body);
      expect(response.status).toBe(400);
      const { error } = await response.json();
      expect(error.type).toBe("invalid_request");
      expect(error.message).toContain("title");
    }
    const extra = await call("PATCH", `/v1/sessions/${sessionId}`, "tok-a", { title: "ok", agent: "x" });
    expect(extra.status).toBe(400);
    expect((await extra.json()).error.message).toContain("agent");
    const notJson = await call("PATCH", `/v1/sessions/${sessionId}`, "tok-a", "{title", "application/json");
    expect((await notJson.json()).error.type).toBe("invalid_json");
    const plain = await call("PATCH", `/v1/sessions/${sessionId}`, "tok-a", '{"title":"x"}', "text/plain");
    expect(plain.status).toBe(415);
    const longest = "y".repeat(200);
    expect((await call("PATCH", `/v1/sessions/${sessionId}`, "tok-a", { title: longest })).status).toBe(200);
    expect(await titles(call, sessionId)).toEqual({ get: longest, list: longest });
    const trimmed = await json(call("PATCH", `/v1/sessions/${sessionId}`, "tok-a", { title: "  Padded  " }));
    expect(trimmed.title).toBe("Padded");
  });

  it("another user's session, or none, is a 404 and keeps its title", async () => {
    const { call } = await serve("memory:");
    const sessionId = await createSession(call, "alice's");
    const response = await call("PATCH", `/v1/sessions/${sessionId}`, "tok-b", { title: "bob's now" });
    expect(response.status).toBe(404);
    const { error } = await response.json();
    expect(error).toMatchObject({ type: "not_found" });
    expect(error.message).toContain(sessionId);
    expect(await titles(call, sessionId)).toEqual({ get: "alice's", list: "alice's" });
    const missing = await call("PATCH", "/v1/sessions/nope", "tok-a", { title: "x" });
    expect(missing.status).toBe(404);
    await call("DELETE", `/v1/sessions/${sessionId}`, "tok-a");
    expect((await call("PATCH", `/v1/sessions/${sessionId}`, "tok-a", { title: "x" })).status).toBe(404);
  });

  it("is in the OpenAPI document", async () => {
    const { call } = await serve("memory:");
    const doc = await json(call("GET", "/v1/openapi.json", "tok-a"));
    expect(doc.paths["/v1/sessions/{id}"].patch.requestBody.content["application/json"].schema).toMatchObject(
      {
        required: ["title"],
        properties: { title: { type: "string", minLength: 1, maxLength: 200 } },
      },
    );
  });
});

const durable = [
  { name: "SQLite", url: () => `sqlite:${join(dir, `${runName("db")}.db`)}` },
  { name: "Redis", url: () => "redis://127.0.0.1:6379", port: 6379 },
  { name: "PostgreSQL", url: () => "postgres://postgres@127.0.0.1:5432/test", port: 5432 },
];

for (const kind of durable) {
  describe(`a renamed session on ${kind.name}`, async () => {
    const missing = kind.port ? await missingService(kind.name, kind.port) : undefined;
    if (missing) {
      reportMissingService(missing);
      return;
    }
    const url = kind.url();
    const prefix = kind.port
      ? kind.name === "Redis"
        ? `${runName("rn")}:`
        : `${runName("rn")}_`
      : undefined;
    afterAll(() => (prefix ? dropBackend(url, prefix) : undefined));

    it("keeps its new title across a restart, and renaming again replaces it", async () => {
      const first = await serve(url, prefix);
      const sessionId = await createSession(first.call, "before");
      const renamed = await first.call("PATCH", `/v1/sessions/${sessionId}`, "tok-a", { title: "after" });
      expect(renamed.status).toBe(200);
      expect(await titles(first.call, sessionId)).toEqual({ get: "after", list: "after" });
      const other = await first.call("PATCH", `/v1/sessions/${sessionId}`, "tok-b", { title: "bob's" });
      expect(other.status).toBe(404);
      await first.close();

      const second = await serve(url, prefix);
      expect(await titles(second.call, sessionId)).toEqual({ get: "after", list: "after" });
      await second.call("PATCH", `/v1/sessions/${sessionId}`, "tok-a", { title: "again" });
      expect(await titles(second.call, sessionId)).toEqual({ get: "again", list: "again" });
      await second.call("DELETE", `/v1/sessions/${sessionId}`, "tok-a");
      expect((await second.call("PATCH", `/v1/sessions/${sessionId}`, "tok-a", { title: "x" })).status).toBe(
        404,
      );
    });
  });
}
