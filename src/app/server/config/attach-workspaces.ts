import { resolve } from "node:path";
import { type BashToolOptions, bashTool } from "../../../tool/builtin/index.js";
import { Toolkit } from "../../../tool/index.js";
import type { SessionDirectory } from "../backend/types.js";
import type { ServiceAgentOptions } from "../runtime/service-runtime.js";
import type { WorkspaceManager, WorkspaceManagerOptions } from "../workspace-manager.js";
import type { ServiceConfig } from "./service-config.js";

/** The manager's options from the config file's `workspaces` (dataDir resolved, `sandbox: true` = defaults). */
export function workspaceOptionsOf(config: ServiceConfig["workspaces"]): WorkspaceManagerOptions | undefined {
  if (!config) return undefined;
  const options: WorkspaceManagerOptions = { dataDir: resolve(config.dataDir) };
  if (config.scope) options.scope = config.scope;
  if (config.sandbox) options.sandbox = config.sandbox === true ? {} : config.sandbox;
  return options;
}

/**
 * Agents that work in their session's workspace: the manager's middleware sets each session's
 * working directory, and with a sandbox the Bash tool is replaced by one whose commands run in it.
 */
export function attachWorkspaces(
  agents: ServiceAgentOptions[],
  manager: WorkspaceManager,
  sessions: SessionDirectory,
  bash: BashToolOptions = {},
): ServiceAgentOptions[] {
  const middleware = manager.middleware(sessions);
  const runner = manager.runner();
  return agents.map((agent) => {
    const attached: ServiceAgentOptions = {
      ...agent,
      middlewares: [middleware, ...(agent.middlewares ?? [])],
    };
    const toolkit = agent.toolkit instanceof Toolkit ? agent.toolkit : new Toolkit(agent.toolkit ?? []);
    if (runner && toolkit.get("Bash")) {
      toolkit.remove("Bash");
      toolkit.register(bashTool({ ...bash, runner }));
    }
    attached.toolkit = toolkit;
    return attached;
  });
}
