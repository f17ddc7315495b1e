import { Redis } from "ioredis";
import { afterAll, describe, expect, it } from "vitest";
import { memoryTool, SemanticMemory, StateVectorStore, stateMemoryFiles } from "../../src/memory/index.js";
import { assistantMsg, userMsg } from "../../src/message/index.js";
import { RedisStateStore } from "../../src/state/index.js";
import { HashEmbedding, ScriptedModel } from "../../src/testing/index.js";
import { missingService, reportMissingService, runName } from "../support/services.js";
import { toolContext } from "../tool/helpers.js";
import { extractTurn } from "./helpers.js";

const missing = await missingService("Redis", 6379);
const url = "redis://127.0.0.1:6379";
const keyPrefix = `${runName("memory")}:`;

if (missing) {
  describe("memory on two replicas sharing Redis", () => reportMissingService(missing));
} else {
  // Two stores = two replicas: separate connections to one Redis.
  const replicaA = new RedisStateStore({ url, prefix: keyPrefix });
  const replicaB = new RedisStateStore({ url, prefix: keyPrefix });
  afterAll(async () => {
    await replicaA.close();
    await replicaB.close();
    const redis = new Redis(url);
    const keys = await redis.keys(`${keyPrefix}*`);
    if (keys.length) await redis.del(...keys);
    await redis.quit();
  });

  describe("memory on two replicas sharing Redis", () => {
    it("notes written through one replica are read on the other, and stay per user", async () => {
      const onA = memoryTool({ files: stateMemoryFiles(replicaA, { userId: "alice" }) });
      const onB = memoryTool({ files: stateMemoryFiles(replicaB, { userId: "alice" }) });
      const bobOnB = memoryTool({ files: stateMemoryFiles(replicaB, { userId: "bob" }) });
      const run = async (tool: typeof onA, args: unknown) =>
        String(await tool.call(tool.parse(args), toolContext()));
      await run(onA, { command: "create", path: "/memories/prefs.md", file_text: "answers in French" });
      expect(await run(onB, { command: "view", path: "/memories/prefs.md" })).toBe("1\tanswers in French");
      await run(onB, {
        command: "str_replace",
        path: "/memories/prefs.md",
        old_str: "French",
        new_str: "Spanish",
      });
      expect(await run(onA, { command: "view", path: "/memories/prefs.md" })).toBe("1\tanswers in Spanish");
      expect(await run(bobOnB, { command: "view", path: "/memories" })).toBe("/memories is empty");
    });

    it("semantic memories recorded through one replica are retrieved on the other", async () => {
      const embedding = new HashEmbedding();
      const extractor = new ScriptedModel([
        extractTurn([{ action: "add", kind: "fact", text: "Lives in Lyon" }]),
      ]);
      const onA = new SemanticMemory({ model: extractor, embedding, store: new StateVectorStore(replicaA) });
      const onB = new SemanticMemory({
        model: new ScriptedModel([]),
        embedding,
        store: new StateVectorStore(replicaB),
      });
      await onA.record([userMsg("I live in Lyon"), assistantMsg("Nice.")], { userId: "alice" });
      const [hit] = await onB.retrieve("where does the user live, Lyon?", { userId: "alice" });
      expect(hit?.text).toBe("Lives in Lyon");
      expect(await onB.list({ userId: "bob" })).toEqual([]);
    });
  });
}
