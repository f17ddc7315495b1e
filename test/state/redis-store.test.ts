import { Redis } from "ioredis";
import { describe, expect, it } from "vitest";
import { RedisStateStore } from "../../src/state/index.js";
import { missingService, reportMissingService, runName } from "../support/services.js";
import { describeDeltaSaves } from "./delta-contract.js";
import { describeFamilyContract } from "./family-contract.js";
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

  const deltaPrefix = `${runName("redis_delta")}:`;
  const redis = new Redis(url);
  describeDeltaSaves("RedisStateStore", {
    open: async (compaction) => new RedisStateStore({ url, prefix: deltaPrefix, compaction }),
    written: async (sessionId, version) => {
      const key = `${deltaPrefix}s:${sessionId}`;
      const [base, patch, state] = await redis.hmget(key, "base", `p:${version}`, "state");
      if (patch !== null) return { kind: "patch", bytes: await redis.hstrlen(key, `p:${version}`) };
      if (Number(base) !== version || state === null) throw new Error(`no save of version ${version}`);
      return { kind: "snapshot", bytes: await redis.hstrlen(key, "state") };
    },
    writeOld: async (sessionId, state) => {
      await redis.hset(`${deltaPrefix}s:${sessionId}`, {
        version: 1,
        state: JSON.stringify(state),
        updatedAt: new Date().toISOString(),
      });
      await redis.zadd(`${deltaPrefix}index`, 0, sessionId);
    },
    damagePatch: async (sessionId, version, patch) => {
      await redis.hset(`${deltaPrefix}s:${sessionId}`, `p:${version}`, patch);
    },
    cleanup: async () => {
      await dropKeys(deltaPrefix);
      await redis.quit();
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

describeFamilyContract({
  name: "Redis",
  url: () => url,
  port: 6379,
  shared: true,
  replicaBus: true,
  prefixEnd: ":",
});
