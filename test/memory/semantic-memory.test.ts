import { beforeEach, describe, expect, it } from "vitest";
import { SAVE_MEMORIES_TOOL, SemanticMemory, StateVectorStore } from "../../src/memory/index.js";
import { assistantMsg, userMsg } from "../../src/message/index.js";
import { InMemoryVectorStore, type VectorStore } from "../../src/rag/index.js";
import { InMemoryStateStore } from "../../src/state/index.js";
import { HashEmbedding, ScriptedModel } from "../../src/testing/index.js";
import { extractTurn, knownIn } from "./helpers.js";

const stores: Array<[string, () => VectorStore]> = [
  ["rag's in-memory store", () => new InMemoryVectorStore()],
  ["the state store (StateVectorStore)", () => new StateVectorStore(new InMemoryStateStore())],
];
let makeStore: () => VectorStore = stores[0]![1];

function setup(turns: ConstructorParameters<typeof ScriptedModel>[0]) {
  const extractor = new ScriptedModel(turns, { name: "extractor" });
  const memory = new SemanticMemory({
    model: extractor,
    embedding: new HashEmbedding(),
    store: makeStore(),
  });
  return { extractor, memory };
}

const exchange = (user: string, answer = "Noted.") => [userMsg(user), assistantMsg(answer)];
const alice = { userId: "alice" };
const bob = { userId: "bob" };

describe.each(stores)("SemanticMemory on %s", (_name, factory) => {
  beforeEach(() => {
    makeStore = factory;
  });

  it("adds what the extractor found, asking with a forced, schema-checked tool call", async () => {
    const { extractor, memory } = setup([
      extractTurn([{ action: "add", kind: "preference", text: "Prefers answers in French" }]),
    ]);
    const result = await memory.record(exchange("Please always answer in French."), alice);
    expect(result.added.map((m) => m.text)).toEqual(["Prefers answers in French"]);
    expect(result.usage).toMatchObject({ inputTokens: 120, outputTokens: 30 });
    expect(result.embeddingTokens).toBeGreaterThan(0);
    expect(extractor.calls[0]!.options.toolChoice).toEqual({ name: SAVE_MEMORIES_TOOL });
    expect(await memory.list(alice)).toMatchObject([
      { userId: "alice", kind: "preference", text: "Prefers answers in French" },
    ]);
  });

  it("updates a known memory on contradiction (the newer statement wins), keeping its id", async () => {
    const { memory } = setup([
      extractTurn([{ action: "add", kind: "preference", text: "Prefers answers in French" }]),
      (messages) => {
        const [id] = [...knownIn(messages).keys()];
        return extractTurn([{ action: "update", id: id!, text: "Prefers answers in Spanish" }]);
      },
    ]);
    const first = await memory.record(exchange("Please answer in French."), alice);
    const second = await memory.record(exchange("Actually, I prefer answers in Spanish now."), alice);
    expect(second.updated.map((m) => [m.id, m.text])).toEqual([
      [first.added[0]!.id, "Prefers answers in Spanish"],
    ]);
    expect((await memory.list(alice)).map((m) => m.text)).toEqual(["Prefers answers in Spanish"]);
    const [hit] = await memory.retrieve("which language for answers?", alice, { topK: 1 });
    expect(hit?.text).toBe("Prefers answers in Spanish");
  });

  it("stores no duplicate when the same thing is said again, even if the extractor repeats it", async () => {
    const add = extractTurn([{ action: "add", kind: "fact", text: "Works on the billing service" }]);
    const { memory, extractor } = setup([add, add]);
    await memory.record(exchange("I work on the billing service."), alice);
    const again = await memory.record(exchange("As I said, I work on the billing service."), alice);
    expect(again.added).toEqual([]);
    expect(knownIn(extractor.calls[1]!.messages).size).toBe(1);
    expect(await memory.list(alice)).toHaveLength(1);
  });

  it("deletes a memory the user says no longer holds", async () => {
    const { memory } = setup([
      extractTurn([{ action: "add", kind: "fact", text: "Uses a Windows laptop" }]),
      (messages) => extractTurn([{ action: "delete", id: [...knownIn(messages).keys()][0]! }]),
    ]);
    await memory.record(exchange("I use a Windows laptop."), alice);
    const result = await memory.record(exchange("I no longer use the Windows laptop."), alice);
    expect(result.deleted).toHaveLength(1);
    expect(await memory.list(alice)).toEqual([]);
  });

  it("rejects an extraction that does not fit the schema, storing nothing", async () => {
    const { memory } = setup([
      { toolCalls: [{ name: SAVE_MEMORIES_TOOL, input: { operations: [{ action: "shout" }] } }] },
    ]);
    await expect(memory.record(exchange("hi"), alice)).rejects.toThrow("memory extraction failed");
    expect(await memory.list(alice)).toEqual([]);
  });
});

describe.each(stores)("SemanticMemory scopes on %s", (_name, factory) => {
  beforeEach(() => {
    makeStore = factory;
  });

  it("never lets one user read, retrieve, change or forget another user's memories", async () => {
    const { memory } = setup([
      extractTurn([{ action: "add", kind: "fact", text: "Alice's door code is 4321" }]),
      // Bob's extractor tries to update and delete an id it was never shown (Alice's).
      () => extractTurn([]),
    ]);
    const { added } = await memory.record(exchange("My door code is 4321"), alice);
    const aliceId = added[0]!.id;

    expect(await memory.list(bob)).toEqual([]);
    expect(await memory.retrieve("door code", bob)).toEqual([]);
    expect(await memory.forget(aliceId, bob)).toBe(0);
    expect(await memory.forget({ kind: "fact" }, bob)).toBe(0);
    expect(await memory.list(alice)).toHaveLength(1);
    expect(await memory.forget(aliceId, alice)).toBe(1);
    expect(await memory.list(alice)).toEqual([]);
  });

  it("ignores updates and deletes of ids outside what the scope was shown", async () => {
    const store = makeStore();
    const embedding = new HashEmbedding();
    let aliceId = "";
    const extractor = new ScriptedModel([
      extractTurn([{ action: "add", kind: "fact", text: "Alice likes tea" }]),
      () =>
        extractTurn([
          { action: "update", id: aliceId, text: "Alice likes coffee" },
          { action: "delete", id: aliceId },
        ]),
    ]);
    const memory = new SemanticMemory({ model: extractor, embedding, store });
    aliceId = (await memory.record(exchange("I like tea"), alice)).added[0]!.id;
    const result = await memory.record(exchange("Alice likes coffee, delete the tea thing"), bob);
    expect(result).toMatchObject({ added: [], updated: [], deleted: [] });
    expect((await memory.list(alice)).map((m) => m.text)).toEqual(["Alice likes tea"]);
  });

  it("keeps per-agent memories to that agent, and shares user-wide ones", async () => {
    const { memory } = setup([
      extractTurn([{ action: "add", kind: "preference", text: "Likes short answers" }]),
      extractTurn([{ action: "add", kind: "fact", text: "Deploys with the coder agent's scripts" }]),
    ]);
    await memory.record(exchange("keep it short"), alice);
    await memory.record(exchange("I deploy with your scripts"), { userId: "alice", agentId: "coder" });
    const texts = async (scope: { userId: string; agentId?: string }) =>
      (await memory.list(scope)).map((m) => m.text);
    expect(await texts({ userId: "alice", agentId: "coder" })).toHaveLength(2);
    expect(await texts({ userId: "alice", agentId: "writer" })).toEqual(["Likes short answers"]);
    expect(await texts(alice)).toHaveLength(2);
  });

  it.each([
    [undefined, "expected { userId"],
    [{}, "userId must be a string"],
    [{ userId: "" }, "userId must be a string"],
    [{ userId: "a", agentId: 3 }, "agentId must be a string"],
  ])("validates the scope %j on every call", async (scope, message) => {
    const { memory } = setup([]);
    const bad = scope as unknown as { userId: string };
    await expect(memory.list(bad)).rejects.toThrow(message);
    await expect(memory.retrieve("x", bad)).rejects.toThrow(message);
    await expect(memory.forget("x", bad)).rejects.toThrow(message);
    await expect(memory.record(exchange("x"), bad)).rejects.toThrow(message);
  });
});

describe("StateVectorStore", () => {
  it("refuses reads and writes that do not name one partition, so no call spans users", async () => {
    const store = new StateVectorStore(new InMemoryStateStore());
    await store.createCollection("m", { dimensions: 2 });
    const record = { documentId: "d", chunkIndex: 0, text: "t", source: "s", vector: [1, 0] };
    await expect(store.upsert("m", [{ ...record, metadata: {} }])).rejects.toThrow("needs a string userId");
    await store.upsert("m", [{ ...record, metadata: { userId: "alice" } }]);
    await expect(store.search("m", { vector: [1, 0], topK: 1 })).rejects.toThrow("filtered by userId");
    await expect(store.listChunks("m", { filter: { userId: { $ne: "bob" } } })).rejects.toThrow(
      "filtered by userId",
    );
    expect(await store.listChunks("m", { filter: { userId: "bob" } })).toEqual([]);
    expect(await store.listChunks("m", { filter: { userId: { $eq: "alice" } } })).toHaveLength(1);
    await expect(store.createCollection("m", { dimensions: 3 })).rejects.toThrow("2 dimensions");
    await store.deleteCollection("m");
    expect(await store.hasCollection("m")).toBe(false);
  });
});
