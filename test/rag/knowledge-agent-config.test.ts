import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { ConfigError, parseServiceConfig } from "../../src/app/server/config/service-config.js";
import { type RunningServer, startServer } from "../../src/app/server/start-server.js";
import { userMsg } from "../../src/message/index.js";
import { SEARCH_KNOWLEDGE_TOOL } from "../../src/rag/index.js";
import { ScriptedModel, type ScriptedStep } from "../../src/testing/index.js";

const servers: RunningServer[] = [];
const dirs: string[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

type KnowledgeSetting = { bases: string[] | "all"; mode?: "agentic" | "static"; topK?: number };

async function serve(steps: ScriptedStep[], knowledge: KnowledgeSetting, store = "memory:") {
  const model = new ScriptedModel(steps);
  const server = await startServer({
    config: {
      agents: [{ name: "assistant", model, knowledge }],
      store,
      knowledge: { embedding: "hash" },
    },
    port: 0,
    tokensEnv: "",
    withoutOptionalRoutes: true,
  });
  servers.push(server);
  const service = server.knowledge!;
  /** Creates the user's base (when new) and indexes one text file into it. */
  const addDocument = async (user: string, base: string, file: string, text: string) => {
    if (!(await service.list(user)).some((info) => info.name === base)) await service.create(user, base);
    const job = await service.startIndexing(user, base, {
      name: file,
      type: "text/plain",
      bytes: new TextEncoder().encode(text),
    });
    expect((await service.settled(user, job.id)).status).toBe("done");
  };
  const chatAs = async (user: string, text: string) => {
    const { sessionId } = await server.runtime.createSession(user);
    await (await server.runtime.startReply(user, sessionId, [userMsg(text)])).done;
    return sessionId;
  };
  return { server, model, service, addDocument, chatAs };
}

const search = (query: string, base?: string): ScriptedStep => ({
  toolCalls: [{ name: SEARCH_KNOWLEDGE_TOOL, input: { query, ...(base ? { knowledge_base: base } : {}) } }],
});

describe("an agent's config names the knowledge bases it may use", () => {
  it("agentic: the agent searches the session owner's base, never another user's of the same name", async () => {
    const { model, addDocument, chatAs } = await serve(
      [
        search("vault code", "notes"),
        { text: "It is on the blue card [1]." },
        search("vault code", "notes"),
        { text: "Nothing about a vault." },
        search("vault code", "secret"),
        { text: "No such base." },
      ],
      { bases: ["notes", "secret"], mode: "agentic", topK: 3 },
    );
    await addDocument("alice", "notes", "vault.txt", "The vault code is written on the blue card.");
    await addDocument("alice", "secret", "alarm.txt", "The alarm code is 4411.");
    await addDocument("bob", "notes", "garden.txt", "Tomatoes need six hours of sun.");

    await chatAs("alice", "Where is the vault code?");
    const aliceSaw = JSON.stringify(model.calls[1]!.messages);
    expect(aliceSaw).toContain("The vault code is written on the blue card.");
    expect(aliceSaw).toContain("vault.txt");
    expect(JSON.stringify(model.calls[0]!.options)).toContain(SEARCH_KNOWLEDGE_TOOL);

    // Bob's "notes" is his own: Alice's chunk never reaches his session.
    await chatAs("bob", "Where is the vault code?");
    const bobSaw = JSON.stringify(model.calls[3]!.messages);
    expect(bobSaw).toContain("garden.txt");
    expect(bobSaw).not.toContain("blue card");

    // Bob has no "secret" base; Alice's is not reachable from his session.
    await chatAs("bob", "And the alarm?");
    const bobSecret = JSON.stringify(model.calls[5]!.messages);
    expect(bobSecret).toContain('There is no knowledge base \\"secret\\"');
    expect(bobSecret).not.toContain("4411");
  });

  it("only the configured bases: a base of the user's that the config does not name is not searched", async () => {
    const { model, addDocument, chatAs } = await serve([search("alarm code"), { text: "Not found." }], {
      bases: ["notes"],
    });
    await addDocument("alice", "notes", "garden.txt", "Tomatoes need six hours of sun.");
    await addDocument("alice", "private", "alarm.txt", "The alarm code is 4411.");
    await chatAs("alice", "What is the alarm code?");
    expect(JSON.stringify(model.calls[1]!.messages)).not.toContain("4411");
  });

  it("static: the owner's excerpts arrive as a HINT_BLOCK before the first reasoning step", async () => {
    const { server, model, addDocument, chatAs } = await serve(
      [{ text: "Forty kelvin [1]." }, { text: "?" }],
      {
        bases: "all",
        mode: "static",
        topK: 1,
      },
    );
    await addDocument("alice", "manuals", "reactor.txt", "The aurora reactor runs at forty kelvin.");
    const sessionId = await chatAs("alice", "How cold is the aurora reactor?");
    expect(JSON.stringify(model.calls[0]!.messages)).toContain("The aurora reactor runs at forty kelvin.");
    const logged = await server.runtime.backend.events.read(sessionId, 0, 1000);
    const hints = logged.filter((e) => e.event.type === "HINT_BLOCK");
    expect(hints).toHaveLength(1);
    expect(JSON.stringify(hints[0]!.event)).toContain("reactor.txt");

    // Bob has no bases: no hint, and nothing of Alice's.
    const bobSession = await chatAs("bob", "How cold is the aurora reactor?");
    expect(JSON.stringify(model.calls[1]!.messages)).not.toContain("forty kelvin");
    const bobEvents = await server.runtime.backend.events.read(bobSession, 0, 1000);
    expect(bobEvents.some((e) => e.event.type === "HINT_BLOCK")).toBe(false);
  });

  it("rejects bad knowledge settings with an error naming the field", async () => {
    const agent = (knowledge: unknown) => ({
      agents: [{ name: "a", model: "openai:gpt-4o-mini", knowledge }],
      knowledge: { embedding: "hash" },
    });
    expect(() => parseServiceConfig(agent({ bases: [] }))).toThrow(
      /agents\[0\]\.knowledge\.bases: .*at least one knowledge base name/,
    );
    expect(() => parseServiceConfig(agent({ bases: ["a b"] }))).toThrow(
      /agents\[0\]\.knowledge\.bases\[0\]: a knowledge base name/,
    );
    expect(() => parseServiceConfig(agent({ bases: ["x", "x"] }))).toThrow(/must be unique/);
    expect(() => parseServiceConfig(agent({ bases: "all", mode: "sometimes" }))).toThrow(
      /agents\[0\]\.knowledge\.mode/,
    );
    expect(() => parseServiceConfig(agent({ bases: "all", topK: 0 }))).toThrow(
      /agents\[0\]\.knowledge\.topK/,
    );
    expect(() => parseServiceConfig(agent({ bases: "all", extra: 1 }))).toThrow(ConfigError);
    expect(() =>
      parseServiceConfig({ agents: [{ name: "a", model: "openai:x" }], knowledge: { embedding: "bert" } }),
    ).toThrow(/knowledge\.embedding/);

    const start = startServer({
      config: {
        agents: [{ name: "a", model: new ScriptedModel([]), knowledge: { bases: "all" } }],
        store: "memory:",
      },
      port: 0,
      tokensEnv: "",
      withoutOptionalRoutes: true,
    });
    await expect(start).rejects.toThrow(/agents "a"\.knowledge: needs the knowledge settings in the config/);
  });

  it("the list of each user's bases survives a restart on the SQLite backend", async () => {
    const dir = mkdtempSync(join(tmpdir(), "kb-registry-"));
    dirs.push(dir);
    const store = `sqlite:${join(dir, "state.db")}`;
    const first = await serve([], { bases: ["notes"] }, store);
    await first.addDocument("alice", "notes", "vault.txt", "The vault code is written on the blue card.");
    await first.server.close();
    servers.splice(servers.indexOf(first.server), 1);

    const second = await serve(
      [search("vault code", "notes"), { text: "On the blue card [1]." }],
      { bases: ["notes"] },
      store,
    );
    expect((await second.service.list("alice")).map((info) => info.name)).toEqual(["notes"]);
    expect(await second.service.list("bob")).toEqual([]);
    await expect(second.service.create("alice", "notes")).rejects.toThrow(/already exists/);
    await second.chatAs("alice", "Where is the vault code?");
    expect(JSON.stringify(second.model.calls[1]!.messages)).toContain("blue card");
  });
});
