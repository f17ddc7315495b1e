export { AgentSpawner, type AgentSpawnerOptions, agentSpawner, SPAWNS_KEY } from "./agent-spawner.js";
export { spawnHints } from "./spawn-hints.js";
export type { SpawnHost, SpawnRequest } from "./spawn-host.js";
export type { SpawnLimits } from "./spawn-limits.js";
export { overLimit, type ResolvedLimits, resolveLimits } from "./spawn-limits.js";
export type { SpawnTemplate } from "./spawn-template.js";
export { spawnTools } from "./spawn-tools.js";
export {
  addUsage,
  messageRefusal,
  outcomeText,
  parentMessage,
  reopen,
  type SpawnHandle,
  type SpawnRecord,
  type SpawnStatus,
  usedTokens,
} from "./spawned-run.js";
