import { parseServerUrl } from "../server-url.js";
import type { StoreFamily } from "../store-family.js";
import { RedisStateStore } from "./redis-store.js";

/** Redis: the state, a Stream per session's events, `SET NX PX` leases, pub/sub between replicas. */
export const redisFamily: StoreFamily = {
  schemes: ["redis", "rediss"],
  example: "redis://",
  async openStore(url, { prefix }) {
    const store = new RedisStateStore({ url: parseServerUrl(url, "the Redis store"), prefix });
    await store.init();
    return store;
  },
  async openBackend(url, options) {
    const { redisBackend } = await import("./redis-backend.js");
    return redisBackend(parseServerUrl(url, "the Redis service backend"), options);
  },
};
