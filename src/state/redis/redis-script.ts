import { createHash } from "node:crypto";
import type { Redis } from "ioredis";

/**
 * A Lua script sent by its SHA1 (EVALSHA), so Redis neither receives nor hashes the body on every
 * call; the body goes once, when the server does not know it yet (first use, or after a restart or
 * SCRIPT FLUSH: the NOSCRIPT reply).
 */
export class RedisScript {
  readonly #sha: string;

  constructor(readonly lua: string) {
    this.#sha = createHash("sha1").update(lua).digest("hex");
  }

  async run(redis: Redis, keys: readonly string[], args: ReadonlyArray<string | number>): Promise<unknown> {
    try {
      return await redis.evalsha(this.#sha, keys.length, ...keys, ...args);
    } catch (error) {
      if (!(error instanceof Error) || !error.message.startsWith("NOSCRIPT")) throw error;
      return redis.eval(this.lua, keys.length, ...keys, ...args);
    }
  }
}
