import { Redis } from "ioredis";
import { describe, expect, it } from "vitest";
import { RedisStateStore } from "../../src/state/index.js";
import { missingService, reportMissingService, runName } from "../support/services.js";
import { describeStoreContract, stateWith } from "./store-contract.js";

const missing = await missingService("Redis", 6379);
const url = "redis://127.0.0.1:6379";
const prefix = `${runName("redis")}:`;

async function dropKeys(prefix: string): Promise<string[]> {
  const redis = new Redis(url);
  const keys = await redis.keys(`${prefix}*`);
  if (keys.length) await redis.del(...keys);
  await redis.quit();
  return keys;
}

if (missing) {
  describe("RedisStateStore", () => reportMissingService(missing));
} else {
  describeStoreContract("RedisStateStore", {
    open: async () => new RedisStateStore({ url, prefix }),
    writeRaw: async (sessionId, stateJson) => {
      const redis = new Redis(url);
      await redis.hset(`${prefix}s:${sessionId}`, {
        version: 1,
        state: stateJson,
        updatedAt: new Date().toISOString(),
      });
      await redis.zadd(`${prefix}index`, 0, sessionId);
      await redis.quit();
    },
    shared: { url, options: { prefix } },
    cleanup: async () => {
      await dropKeys(prefix);
    },
  });

  describe("RedisStateStore keys and clients", () => {
    it("writes only under its key prefix and uses a client it is given, leaving it open", async () => {
      const prefix = `${runName("redis_client")}:`;
      const client = new Redis(url);
      const store = new RedisStateStore({ client, keyPrefix: prefix }); // the old option name still works
      await store.save("a", stateWith("a", ["x"]), { expectedVersion: 0 });
      await store.close();
      expect(await client.ping()).toBe("PONG");
      await client.quit();
      expect((await dropKeys(prefix)).sort()).toEqual([`${prefix}index`, `${prefix}s:a`]);
    });

    it("fails with the URL when the server cannot be reached", async () => {
      const store = new RedisStateStore({ url: "redis://127.0.0.1:1" });
      await expect(store.init()).rejects.toThrow(
        /RedisStateStore cannot connect to redis:\/\/127\.0\.0\.1:1/,
      );
    });
  });
}
