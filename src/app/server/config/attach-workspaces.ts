import { type BashToolOptions, bashTool } from "../../../tool/builtin/index.js";
import { Toolkit } from "../../../tool/index.js";
import type { SessionDirectory } from "../backend/types.js";
import type { ServiceAgentOptions } from "../runtime/service-runtime.js";
import type { WorkspaceManager } from "../workspace-manager.js";

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
