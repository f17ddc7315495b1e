import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parseServiceConfig } from "../../src/app/server/config/service-config.js";
import { type RunningServer, startServer } from "../../src/app/server/start-server.js";
import { AgentScopeClient } from "../../src/client/index.js";
import { ScriptedModel } from "../../src/testing/index.js";

const note = (path: string, text: string) => ({
  toolCalls: [{ name: "Memory", input: { command: "create", path: `/memories/${path}`, file_text: text } }],
});

const dir = mkdtempSync(join(tmpdir(), "agentscope-rewind-memory-"));
let server: RunningServer;
let client: AgentScopeClient;

beforeAll(async () => {
  const model = new ScriptedModel([
    { text: "hi" }, // session 1, reply 1
    note("tea.md", "likes tea"), // session 1, reply 2
    { text: "Saved." },
    { text: "hi" }, // session 2, reply 1
    note("coffee.md", "likes coffee"), // session 2, reply 2
    { text: "Saved." },
  ]);
  server = await startServer({
    config: parseServiceConfig({
      agents: [
        { name: "main", model, memory: { semantic: false }, permission: { allow: ["Memory"] } },
        { name: "plain", model: new ScriptedModel([]) },
      ],
      checkpoints: true,
    }),
    store: `sqlite:${join(dir, "state.db")}`,
    port: 0,
    tokensEnv: "",
    workspaces: false,
    withoutOptionalRoutes: true,
  });
  client = new AgentScopeClient({ baseUrl: server.url });
});

afterAll(async () => {
  await server.close();
  rmSync(dir, { recursive: true, force: true });
});

/** The local user's memory notes, as the Memory tool keeps them in the state store. */
async function notes(): Promise<Record<string, string>> {
  const stored = await server.runtime.backend.store.load("memory-files/local");
  return (stored?.state.middleware.document as { files?: Record<string, string> } | undefined)?.files ?? {};
}

/** A session with a reply, then a reply that writes a note; answers the checkpoint between them. */
async function writeNoteAfterCheckpoint(): Promise<{ sessionId: string; before: string }> {
  const { sessionId } = await client.createSession();
  await client.send(sessionId, "hello").collect();
  const list = await client.checkpoints(sessionId);
  expect(list.memory).toBe(true);
  const before = list.checkpoints.at(-1)!.id;
  await client.send(sessionId, "remember this").collect();
  return { sessionId, before };
}

describe("rewinding a served session's memory writes", () => {
  it("reverts a note written after the checkpoint with memory: revert", async () => {
    const { sessionId, before } = await writeNoteAfterCheckpoint();
    expect(await notes()).toEqual({ "tea.md": "likes tea" });
    const rewound = await client.rewind(sessionId, before, { memory: "revert" });
    expect(rewound.memoryReverted).toEqual(["tea.md"]);
    expect(await notes()).toEqual({});
    // undoing the rewind, reverting again, brings the note back
    await client.rewind(sessionId, rewound.undo, { memory: "revert" });
    expect(await notes()).toEqual({ "tea.md": "likes tea" });
  });

  it("keeps it by default and with memory: keep", async () => {
    const { sessionId, before } = await writeNoteAfterCheckpoint();
    const rewound = await client.rewind(sessionId, before, { memory: "keep" });
    expect(rewound.memoryReverted).toBeUndefined();
    expect(rewound.messages).toBe(2);
    expect(await notes()).toEqual({ "tea.md": "likes tea", "coffee.md": "likes coffee" });
    await client.rewind(sessionId, rewound.undo);
    expect(await notes()).toEqual({ "tea.md": "likes tea", "coffee.md": "likes coffee" });
  });

  it("refuses revert (409) on checkpoints that hold no memory snapshot, changing nothing", async () => {
    const { sessionId } = await client.createSession({ agent: "plain" });
    const list = await client.checkpoints(sessionId);
    expect(list.memory).toBe(false);
    await expect(client.rewind(sessionId, list.checkpoints[0]!.id, { memory: "revert" })).rejects.toThrow(
      /memory writes cannot be reverted/,
    );
    expect((await client.checkpoints(sessionId)).checkpoints).toHaveLength(1); // no undo checkpoint taken
  });

  it("refuses a bad memory option (400)", async () => {
    const { sessionId } = await client.createSession();
    const [start] = (await client.checkpoints(sessionId)).checkpoints;
    const response = await fetch(`${server.url}/v1/sessions/${sessionId}/rewind`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ checkpoint: start!.id, memory: "forget" }),
    });
    expect(response.status).toBe(400);
  });
});
