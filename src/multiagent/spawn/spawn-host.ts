import type { ToolContext } from "../../tool/index.js";
import type { ResolvedLimits } from "./spawn-limits.js";
import type { SpawnHandle, SpawnRecord } from "./spawned-run.js";

/** What `agent_spawn` asks for. */
export interface SpawnRequest {
  template: string;
  prompt: string;
  label?: string;
  /** A task of the parent's list the sub-agent is assigned. */
  taskId?: string;
  /** Serve the sub-agent's session to the user (only hosts with `exposes`). */
  expose?: boolean;
}

/** What the spawn tools and the hint middleware need of their spawner (`AgentSpawner`, the service's). */
export interface SpawnHost {
  readonly limits: ResolvedLimits;
  /** The host can serve a sub-agent's session to the user (`expose_to_user`). */
  readonly exposes?: boolean;
  templateList(): Array<{ name: string; description: string }>;
  start(request: SpawnRequest, ctx: ToolContext): SpawnHandle | string | Promise<SpawnHandle | string>;
  run(sessionId: string, id: string): SpawnHandle | undefined;
  records(toolState: Record<string, unknown>, sessionId: string): SpawnRecord[];
  /**
   * Sends an ended sub-agent `text` as a new user turn of its session and starts its reply (the
   * record goes back to `running`): its handle, or why not (it is paused or lost; its session is
   * busy). Hosts without it offer no `agent_message`. Only called for a record that is not running.
   */
  message?(
    record: SpawnRecord,
    text: string,
    ctx: ToolContext,
  ): SpawnHandle | string | Promise<SpawnHandle | string>;
  /** Brings the session's records up to date where they run elsewhere (before `records` is read). */
  refresh?(toolState: Record<string, unknown>, sessionId: string): Promise<void>;
}
