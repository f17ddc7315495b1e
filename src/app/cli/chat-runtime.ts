import { createBackend } from "../server/backend/create-backend.js";
import { attachWorkspaces, openServiceWorkspaces } from "../server/config/attach-workspaces.js";
import { buildAgents } from "../server/config/build-agents.js";
import type { ServiceConfig } from "../server/config/service-config.js";
import { ServiceRuntime } from "../server/runtime/service-runtime.js";

/** An in-process runtime for `agentscope chat`, wired like the server's: workspaces and the sandbox included. */
export interface ChatRuntime {
  runtime: ServiceRuntime;
  /** What keeps the tools in (the server's start-up line). */
  containment: string;
  warnings: string[];
  close(): Promise<void>;
}

/**
 * The config's agents on a store (default memory), each session in its own workspace as under
 * `agentscope serve`: Bash in a bubblewrap sandbox where it runs (`workspaces.sandbox` decides, as
 * for the server), the file tools kept in the workspace.
 */
export async function chatRuntime(config: ServiceConfig, store = "memory:"): Promise<ChatRuntime> {
  const backend = await createBackend(store);
  try {
    const workspaces = await openServiceWorkspaces({ config: config.workspaces, storeUrl: store });
    try {
      const agents = attachWorkspaces(await buildAgents(config.agents), workspaces.manager, backend.sessions);
      const runtime = new ServiceRuntime({
        backend,
        agents,
        onSessionDeleted: (record) => workspaces.manager.remove(record),
      });
      return {
        runtime,
        containment: workspaces.containment,
        warnings: workspaces.warning ? [workspaces.warning] : [],
        close: async () => {
          await runtime.close();
          await workspaces.close();
        },
      };
    } catch (error) {
      await workspaces.close();
      throw error;
    }
  } catch (error) {
    await backend.close();
    throw error;
  }
}
