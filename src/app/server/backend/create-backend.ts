import { familyOf, supportedUrls } from "../../../state/service/index.js";
import { ConfigError } from "../config/service-config.js";
import type { BackendOptions, ServiceBackend } from "./types.js";

const SQL_PREFIX = /^[A-Za-z_]\w{0,39}$/;

/**
 * The service backend for a store URL (its driver family's, see `state/store-families.ts`); the
 * driver module is imported only for the scheme used. Resolves once connected and ready, so a bad URL
 * or a server that is down fails here.
 */
export async function createBackend(url: string, options: BackendOptions = {}): Promise<ServiceBackend> {
  const family = familyOf(url);
  const supported = `${supportedUrls("service")} (sqlite: alone is .agentscope/state.db)`;
  if (!family)
    throw new ConfigError(`unsupported store URL "${url}" for the service; use one of ${supported}`);
  if (!family.openBackend)
    throw new ConfigError(`store "${url}": ${family.noBackend}; use one of ${supported}`);
  if (options.prefix !== undefined && !family.schemes.includes("redis") && !SQL_PREFIX.test(options.prefix))
    throw new ConfigError(
      `store prefix "${options.prefix}": SQL table names take letters, digits and _ (start with a letter or _)`,
    );
  return family.openBackend(url, options);
}
