import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { type RunningServer, startServer } from "../../src/app/server/start-server.js";
import type { MemoryRecord } from "../../src/memory/index.js";
import { userMsg } from "../../src/message/index.js";
import { ScriptedModel, type ScriptedStep } from "../../src/testing/index.js";
import { extractTurn } from "./helpers.js";

const servers: RunningServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

async function serve(chat: ScriptedStep[], extractor: ScriptedStep[], memory: unknown = true) {
  const model = new ScriptedModel(chat);
  const server = await startServer({
    config: {
      agents: [{ name: "assistant", model, memory: memory as boolean }],
      store: "memory:",
      tokens: { "token-a": "alice", "token-b": "bob" },
      memory: { embedding: "hash", model: new ScriptedModel(extractor, { name: "extractor" }) },
    },
    port: 0,
    tokensEnv: "",
    withoutOptionalRoutes: true,
  });
  servers.push(server);
  const call = async (token: string, method: string, path: string) => {
    const response = await fetch(`${server.url}${path}`, {
      method,
      headers: { authorization: `Bearer ${token}` },
    });
    // biome-ignore lint/suspicious/noExplicitAny: JSON bodies of several shapes, checked by the assertions
    const body: any = response.status === 204 ? undefined : await response.json();
    return { status: response.status, body };
  };
  /** One reply in a new session of `user`, to its end. */
  const chatAs = async (user: string, text: string) => {
    const { sessionId } = await server.runtime.createSession(user);
    await (await server.runtime.startReply(user, sessionId, [userMsg(text)])).done;
    return sessionId;
  };
  /** Waits until the background extraction has stored something for the user (its reply is already over). */
  const memoriesOf = async (token: string): Promise<MemoryRecord[]> => {
    for (let attempt = 0; attempt < 100; attempt++) {
      const { body } = await call(token, "GET", "/v1/memories");
      if (body.memories.length > 0) return body.memories;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    return [];
  };
  return { server, model, call, chatAs, memoriesOf };
}

describe("memory in the service", () => {
  it("remembers per user across sessions; user B can neither read nor delete user A's memories", async () => {
    const { model, call, chatAs, memoriesOf } = await serve(
      [{ text: "Entendu." }, { text: "Voici." }, { text: "Here you go." }],
      [
        extractTurn([{ action: "add", kind: "preference", text: "Prefers answers in French" }]),
        extractTurn([]),
        extractTurn([]),
      ],
    );
    await chatAs("alice", "Please answer in French from now on.");
    const [memory] = await memoriesOf("token-a");
    expect(memory).toMatchObject({ userId: "alice", kind: "preference", text: "Prefers answers in French" });

    // Bob sees nothing and cannot delete Alice's memory (404, as if it did not exist).
    expect((await call("token-b", "GET", "/v1/memories")).body).toEqual({ enabled: true, memories: [] });
    expect((await call("token-b", "DELETE", `/v1/memories/${memory!.id}`)).status).toBe(404);
    expect((await call("token-b", "DELETE", "/v1/memories")).body).toEqual({ deleted: 0 });
    expect((await call("token-a", "GET", "/v1/memories")).body.memories).toHaveLength(1);

    // A new session of Alice's starts with the preference as a hint; Bob's does not.
    await chatAs("alice", "Which language do I prefer for answers?");
    const aliceSaw = JSON.stringify(model.calls[1]!.messages);
    expect(aliceSaw).toContain("Prefers answers in French");
    await chatAs("bob", "Which language do I prefer for answers?");
    const bobSaw = JSON.stringify(model.calls[2]!.messages);
    expect(bobSaw).not.toContain("French");

    expect((await call("token-a", "DELETE", `/v1/memories/${memory!.id}`)).status).toBe(204);
    expect((await call("token-a", "GET", "/v1/memories")).body.memories).toEqual([]);
  });

  it("gives the agent a Memory notes tool kept in the state store, per user", async () => {
    const write = { command: "create", path: "/memories/prefs.md", file_text: "likes tea" };
    const { server, call } = await serve(
      [
        { toolCalls: [{ name: "Memory", input: write }] },
        { text: "Saved." },
        { toolCalls: [{ name: "Memory", input: { command: "view", path: "/memories" } }] },
        { text: "Nothing yet." },
      ],
      [],
      { semantic: false },
    );
    expect((await call("token-a", "GET", "/v1/memories")).body).toEqual({ enabled: false, memories: [] });
    const alice = await server.runtime.createSession("alice");
    await (await server.runtime.startReply("alice", alice.sessionId, [userMsg("remember I like tea")])).done;
    // Writing a note asks first (default mode), like any edit.
    const status = await server.runtime.status("alice", alice.sessionId);
    expect(status.waitingFor).toBe("user_confirm");
    await (
      await server.runtime.confirm("alice", alice.sessionId, [
        { toolCallId: status.pendingToolCalls[0]!.id, confirmed: true },
      ])
    ).done;
    const store = server.runtime.backend.store;
    expect((await store.load("memory-files/alice"))?.state.middleware.document).toEqual({
      files: { "prefs.md": "likes tea" },
    });
    // Bob's agent views his own (empty) notes.
    const bob = await server.runtime.createSession("bob");
    await (await server.runtime.startReply("bob", bob.sessionId, [userMsg("what do you remember?")])).done;
    const messages = await server.runtime.messages("bob", bob.sessionId);
    expect(JSON.stringify(messages.at(-1))).toContain("/memories is empty");

    // Each user sees and deletes only their own notes over HTTP.
    expect((await call("token-a", "GET", "/v1/memories/notes")).body).toEqual({
      enabled: true,
      files: [{ path: "/memories/prefs.md", size: 9, text: "likes tea" }],
    });
    expect((await call("token-b", "GET", "/v1/memories/notes")).body).toEqual({ enabled: true, files: [] });
    const note = "/v1/memories/notes?path=/memories/prefs.md";
    expect((await call("token-b", "DELETE", note)).status).toBe(404);
    expect((await call("token-a", "DELETE", "/v1/memories/notes?path=/memories/../x")).status).toBe(400);
    expect((await call("token-a", "DELETE", note)).status).toBe(204);
    expect((await call("token-a", "GET", "/v1/memories/notes")).body.files).toEqual([]);
  });

  it("keeps semantic memories in the service's state store: they survive a restart", async () => {
    const dir = mkdtempSync(join(tmpdir(), "agentscope-memory-service-"));
    try {
      const start = (extractor: ScriptedStep[]) =>
        startServer({
          config: {
            agents: [{ name: "assistant", model: new ScriptedModel([{ text: "Noted." }]), memory: true }],
            store: `sqlite:${join(dir, "state.db")}`,
            tokens: { "token-a": "alice" },
            memory: { embedding: "hash", model: new ScriptedModel(extractor) },
          },
          port: 0,
          tokensEnv: "",
          withoutOptionalRoutes: true,
        });
      const first = await start([extractTurn([{ action: "add", kind: "fact", text: "Lives in Lyon" }])]);
      const { sessionId } = await first.runtime.createSession("alice");
      await (await first.runtime.startReply("alice", sessionId, [userMsg("I live in Lyon")])).done;
      const list = async (server: RunningServer) =>
        (
          await (
            await fetch(`${server.url}/v1/memories`, { headers: { authorization: "Bearer token-a" } })
          ).json()
        ).memories as MemoryRecord[];
      for (let attempt = 0; attempt < 100 && (await list(first)).length === 0; attempt++) {
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      await first.close();
      const second = await start([]);
      servers.push(second);
      expect((await list(second)).map((m) => m.text)).toEqual(["Lives in Lyon"]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("keeps a perAgent agent's memories to that agent", async () => {
    const server = await startServer({
      config: {
        agents: [
          {
            name: "coder",
            model: new ScriptedModel([{ text: "ok" }]),
            memory: { perAgent: true, notes: false },
          },
          { name: "writer", model: new ScriptedModel([]), memory: { notes: false } },
        ],
        store: "memory:",
        tokens: { "token-a": "alice" },
        memory: {
          embedding: "hash",
          model: new ScriptedModel([
            extractTurn([{ action: "add", kind: "fact", text: "Deploys on Fridays" }]),
          ]),
        },
      },
      port: 0,
      tokensEnv: "",
      withoutOptionalRoutes: true,
    });
    servers.push(server);
    const list = async (query: string) =>
      (
        (await (
          await fetch(`${server.url}/v1/memories${query}`, { headers: { authorization: "Bearer token-a" } })
        ).json()) as { memories: MemoryRecord[] }
      ).memories;
    const { sessionId } = await server.runtime.createSession("alice", { agent: "coder" });
    await (await server.runtime.startReply("alice", sessionId, [userMsg("I deploy on Fridays")])).done;
    for (let attempt = 0; attempt < 100 && (await list("")).length === 0; attempt++) {
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    expect(await list("?agent=coder")).toMatchObject([{ agentId: "coder", text: "Deploys on Fridays" }]);
    expect(await list("?agent=writer")).toEqual([]);
    expect(await list("")).toHaveLength(1);
  });

  it("refuses semantic memory without an embedding, naming the agent", async () => {
    await expect(
      startServer({
        config: {
          agents: [{ name: "assistant", model: new ScriptedModel([]), memory: true }],
          store: "memory:",
        },
        port: 0,
        tokensEnv: "",
        withoutOptionalRoutes: true,
      }),
    ).rejects.toThrow('agents "assistant".memory: semantic memory needs memory.embedding');
  });
});
