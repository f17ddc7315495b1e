import { stat } from "node:fs/promises";
import { WorkspaceFileView } from "../../workspace/index.js";
import { createBackend } from "../server/backend/create-backend.js";
import { attachWorkspaces, openServiceWorkspaces } from "../server/config/attach-workspaces.js";
import { buildAgents } from "../server/config/build-agents.js";
import { buildCheckpoints } from "../server/config/build-checkpoints.js";
import type { ServiceConfig } from "../server/config/service-config.js";
import { LOCAL_USER } from "../server/http/auth.js";
import { ServiceRuntime } from "../server/runtime/service-runtime.js";
import type { WorkspaceManager } from "../server/workspace-manager.js";
import { diffableText, MAX_DIFFED_FILE_BYTES, type SessionFileReader } from "./chat-client.js";

/** An in-process runtime for `agentscope chat`, wired like the server's: workspaces and the sandbox included. */
export interface ChatRuntime {
  runtime: ServiceRuntime;
  /** What keeps the tools in (the server's start-up line). */
  containment: string;
  warnings: string[];
  /** A file of a session's workspace, for the diff of a call that asks (see ChatClient.readFile). */
  readWorkspaceFile: SessionFileReader;
  close(): Promise<void>;
}

/**
 * Reads a session's workspace file through the file tools' view (no hidden path, no link out):
 * undefined when it does not exist, null when it is not a regular file, too large or binary.
 */
function workspaceFileReader(runtime: ServiceRuntime, manager: WorkspaceManager): SessionFileReader {
  return async (sessionId, path) => {
    const root = await manager.ensure(await runtime.getSession(LOCAL_USER, sessionId));
    const view = new WorkspaceFileView(root, manager.hidden);
    let absolute: string;
    try {
      absolute = await view.resolve(path, root);
    } catch (error) {
      return /does not exist/.test((error as Error).message) ? undefined : null;
    }
    const info = await stat(absolute).catch(() => undefined);
    if (!info) return undefined;
    if (!info.isFile() || info.size > MAX_DIFFED_FILE_BYTES) return null;
    return diffableText((await view.read(absolute)).data);
  };
}

/**
 * The config's agents on a store (default memory), each session in its own workspace as under
 * `agentscope serve` (with checkpoints, unless the config's `checkpoints` is false): Bash in a bubblewrap sandbox where it runs (`workspaces.sandbox` decides, as
 * for the server), the file tools kept in the workspace.
 */
export async function chatRuntime(config: ServiceConfig, store = "memory:"): Promise<ChatRuntime> {
  const backend = await createBackend(store);
  try {
    const workspaces = await openServiceWorkspaces({ config: config.workspaces, storeUrl: store });
    try {
      const agents = attachWorkspaces(await buildAgents(config.agents), workspaces.manager, backend.sessions);
      // `/rewind` and `/fork` need checkpoints: on in chat unless the config turns them off
      const checkpoints = buildCheckpoints(config.checkpoints ?? true, store, undefined, workspaces.manager);
      const runtime = new ServiceRuntime({
        backend,
        agents,
        onSessionDeleted: (record) => workspaces.manager.remove(record),
        ...(checkpoints ? { checkpoints } : {}),
      });
      return {
        runtime,
        containment: workspaces.containment,
        warnings: workspaces.warning ? [workspaces.warning] : [],
        readWorkspaceFile: workspaceFileReader(runtime, workspaces.manager),
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
