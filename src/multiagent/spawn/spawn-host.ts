import type { ToolContext } from "../../tool/index.js";
import type { ResolvedLimits } from "./spawn-limits.js";
import type { SpawnedRun, SpawnRecord } from "./spawned-run.js";

/** What `agent_spawn` asks for. */
export interface SpawnRequest {
  template: string;
  prompt: string;
  label?: string;
  /** A task of the parent's list the sub-agent is assigned. */
  taskId?: string;
}

/** What the spawn tools and the hint middleware need of their spawner (`AgentSpawner`). */
export interface SpawnHost {
  readonly limits: ResolvedLimits;
  templateList(): Array<{ name: string; description: string }>;
  start(request: SpawnRequest, ctx: ToolContext): SpawnedRun | string;
  run(sessionId: string, id: string): SpawnedRun | undefined;
  records(toolState: Record<string, unknown>, sessionId: string): SpawnRecord[];
}
