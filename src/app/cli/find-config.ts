import { existsSync } from "node:fs";
import { loadServiceConfig } from "../server/config/load-config.js";
import { ConfigError, type ServiceConfig } from "../server/config/service-config.js";
import { enableTypeScriptConfig } from "./typescript-loader.js";

const DEFAULT_FILES = [
  "agentscope.config.ts",
  "agentscope.config.mjs",
  "agentscope.config.js",
  "agentscope.config.json",
];

/**
 * The config named by --config, or the first agentscope.config.* in the working directory; a `.ts`
 * one loads through tsx or Node's type stripping (typescript-loader.ts).
 */
export async function findConfig(file: string | undefined): Promise<ServiceConfig> {
  const chosen = file ?? DEFAULT_FILES.find((name) => existsSync(name));
  if (!chosen)
    throw new ConfigError(
      `no config: pass --config <file> or create one of ${DEFAULT_FILES.join(", ")} (or try: agentscope demo)`,
    );
  await enableTypeScriptConfig(chosen);
  return loadServiceConfig(chosen);
}
