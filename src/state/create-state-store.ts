import type { AgentStateStore } from "./store.js";
import { familyOf, supportedUrls } from "./store-families.js";
import type { StateStoreOptions } from "./store-family.js";

export interface CreateStateStoreOptions extends StateStoreOptions {
  /** @deprecated the old name of `prefix`. */
  keyPrefix?: string;
}

/**
 * A store from a URL: `memory:`, `file:./dir`, `sqlite:./path.db` (`sqlite:` alone = the default
 * `.agentscope/state.db`, `sqlite::memory:`), `redis://`, `rediss://`, `postgres://`, `postgresql://`,
 * `mysql://`, `mariadb://`. Resolves once it is connected and ready, so a bad URL, a missing driver
 * or a server that is down fails here.
 */
export async function createStateStore(
  url: string,
  options: CreateStateStoreOptions = {},
): Promise<AgentStateStore> {
  const family = familyOf(url);
  if (!family)
    throw new TypeError(
      `createStateStore: unsupported store URL "${url}"; use one of ${supportedUrls("store")}`,
    );
  return family.openStore(url, { table: options.table, prefix: options.prefix ?? options.keyPrefix });
}
