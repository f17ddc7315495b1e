import { describe, expect, it } from "vitest";
import { Agent } from "../../src/agent/index.js";
import type { AgentEvent } from "../../src/event/index.js";
import {
  type LongTermMemory,
  MEMORY_HINT_HEADER,
  type MemoryRecord,
  SemanticMemory,
  type SemanticMemoryMiddlewareOptions,
  semanticMemoryMiddleware,
} from "../../src/memory/index.js";
import { userMsg } from "../../src/message/index.js";
import { InMemoryVectorStore } from "../../src/rag/index.js";
import { HashEmbedding, ScriptedModel } from "../../src/testing/index.js";
import { extractTurn } from "./helpers.js";

const scope = { userId: "alice" };

/** The hint text of a reply to `question` (undefined: no hint). */
async function hintFor(
  memory: LongTermMemory,
  question: string,
  options: Partial<SemanticMemoryMiddlewareOptions> = {},
) {
  const middleware = semanticMemoryMiddleware({ memory, scope, record: false, ...options });
  const agent = new Agent({
    name: "a",
    model: new ScriptedModel([{ text: "ok" }]),
    middlewares: [middleware],
  });
  const events: AgentEvent[] = [];
  for await (const event of agent.replyStream(userMsg(question))) events.push(event);
  const hint = events.find((event) => event.type === "HINT_BLOCK");
  return hint?.type === "HINT_BLOCK" ? hint.text : undefined;
}

/** A SemanticMemory on the offline hash embedding, holding what one extraction added. */
async function offlineMemoryWith(operations: Parameters<typeof extractTurn>[0]) {
  const memory = new SemanticMemory({
    model: new ScriptedModel([extractTurn(operations)]),
    embedding: new HashEmbedding(),
    store: new InMemoryVectorStore(),
  });
  await memory.record([userMsg("(the earlier conversation)")], scope);
  return memory;
}

describe("profile memories reach every reply, whatever its wording", () => {
  it("a preference sharing no word with the question is injected (the offline hash embedding)", async () => {
    const memory = await offlineMemoryWith([
      { action: "add", kind: "preference", text: "Prefers answers in French" },
      { action: "add", kind: "fact", text: "Maintains the billing service written in Go" },
    ]);
    // minScore keeps the unrelated fact out, so the hint shows what the profile adds.
    const hint = await hintFor(memory, "Give me a dinner recipe", { minScore: 0.1 });
    expect(hint).toBe(`${MEMORY_HINT_HEADER}\n- Prefers answers in French`);
    // Without the profile, similarity alone loses it: the two texts share no word.
    expect(
      await hintFor(memory, "Give me a dinner recipe", { minScore: 0.1, profile: false }),
    ).toBeUndefined();
  });

  it("related facts still come by similarity, after the profile, without duplicates", async () => {
    const memory = await offlineMemoryWith([
      { action: "add", kind: "preference", text: "Prefers answers in French" },
      { action: "add", kind: "fact", text: "Maintains the billing service written in Go" },
    ]);
    const hint = await hintFor(memory, "How do I profile the billing service in French?", { minScore: 0.1 });
    expect(hint?.split("\n").slice(1)).toEqual([
      "- Prefers answers in French",
      "- Maintains the billing service written in Go",
    ]);
  });

  it("keeps to the budget (newest first), and only the profile's kinds even from a list that ignores them", async () => {
    const at = (minute: number) => `2026-12-01T00:${String(minute).padStart(2, "0")}:00.000Z`;
    const records: MemoryRecord[] = [
      ...Array.from({ length: 7 }, (_, i) => ({
        id: `mem_p${i}`,
        userId: "alice",
        kind: "preference" as const,
        text: `Preference number ${i}`,
        createdAt: at(i),
        updatedAt: at(i),
      })),
      { id: "mem_f", userId: "alice", kind: "fact", text: "A fact", createdAt: at(30), updatedAt: at(30) },
    ];
    const asked: unknown[] = [];
    const memory: LongTermMemory = {
      record: async () => ({
        added: [],
        updated: [],
        deleted: [],
        usage: { inputTokens: 0, outputTokens: 0 },
        embeddingTokens: 0,
      }),
      retrieve: async () => [],
      list: async (_scope, options) => {
        asked.push(options);
        return records; // ignores `kinds`
      },
      forget: async () => 0,
    };
    const hint = await hintFor(memory, "hello", { profile: { max: 3 } });
    expect(hint?.split("\n").slice(1)).toEqual([
      "- Preference number 6",
      "- Preference number 5",
      "- Preference number 4",
    ]);
    expect(asked).toEqual([{ kinds: ["preference"] }]);
    expect(() => semanticMemoryMiddleware({ memory, scope, profile: { max: -1 } })).toThrow(
      /profile.max must be an integer ≥ 0/,
    );
  });

  it("SemanticMemory.list filters by kind in the store", async () => {
    const memory = await offlineMemoryWith([
      { action: "add", kind: "preference", text: "Prefers short answers" },
      { action: "add", kind: "fact", text: "Lives in Oslo" },
    ]);
    expect((await memory.list(scope, { kinds: ["preference"] })).map((m) => m.text)).toEqual([
      "Prefers short answers",
    ]);
    expect((await memory.list(scope, { kinds: [] })).length).toBe(0);
    expect((await memory.list(scope)).length).toBe(2);
  });
});
