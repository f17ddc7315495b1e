import { type CheckpointRetention, openCheckpointStore } from "../../../state/index.js";
import type { ServiceCheckpointOptions } from "../runtime/session-time-travel.js";
import type { WorkspaceManager } from "../workspace-manager.js";
import { ConfigError, type ServiceConfig } from "./service-config.js";

/** The `checkpoints` setting: the config's key, or what `startServer` was passed. */
export type CheckpointsSetting = ServiceConfig["checkpoints"] | { retention?: CheckpointRetention };

/**
 * The service's checkpoint options for a setting (undefined: off), on the store beside the state
 * store; with per-session workspaces they hold the files too, and with `memoryOf` (the agents'
 * memory notes) a snapshot of the session's notes. A store that keeps no checkpoints is
 * a ConfigError that says which do.
 */
export function buildCheckpoints(
  setting: CheckpointsSetting,
  storeUrl: string,
  prefix: string | undefined,
  workspaces: WorkspaceManager | undefined,
  memoryOf?: ServiceCheckpointOptions["memoryOf"],
): ServiceCheckpointOptions | undefined {
  if (!setting) return undefined;
  let store: ServiceCheckpointOptions["store"];
  try {
    store = openCheckpointStore(storeUrl, prefix);
  } catch (error) {
    throw new ConfigError((error as Error).message);
  }
  const files = workspaces?.scope === "session" ? workspaces : undefined;
  const retention = setting === true ? undefined : setting.retention;
  return {
    store,
    ...(files ? { workspaceOf: (record) => files.rootOf(record) } : {}),
    ...(retention ? { retention } : {}),
    ...(memoryOf ? { memoryOf } : {}),
  };
}
