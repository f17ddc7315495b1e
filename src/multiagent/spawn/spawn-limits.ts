/** How far `agent_spawn` may go. Every limit's refusal names it in the tool result. */
export interface SpawnLimits {
  /** How deep spawns nest: 1 = only the top-level agent spawns (default 2). */
  maxDepth?: number;
  /** Sub-agents one reply may start (default 4). */
  maxPerReply?: number;
  /** Sub-agents of one session running at once (default 4). */
  maxConcurrent?: number;
  /** Sub-agents one session may start in all (default 16). */
  maxPerSession?: number;
  /** Tokens (input + output) the sub-agents of one session may use in all; no spawn once spent. */
  maxTokensPerSession?: number;
  /** How long a spawn waits for its result by default, in seconds (default 30, at most 600). */
  defaultTimeoutSeconds?: number;
}

export const MAX_SPAWN_TIMEOUT_SECONDS = 600;

export type ResolvedLimits = Required<Omit<SpawnLimits, "maxTokensPerSession">> &
  Pick<SpawnLimits, "maxTokensPerSession">;

/** The limits with their defaults, each checked (a positive integer; the timeout within 0-600). */
export function resolveLimits(limits: SpawnLimits = {}): ResolvedLimits {
  const resolved: ResolvedLimits = {
    maxDepth: limits.maxDepth ?? 2,
    maxPerReply: limits.maxPerReply ?? 4,
    maxConcurrent: limits.maxConcurrent ?? 4,
    maxPerSession: limits.maxPerSession ?? 16,
    defaultTimeoutSeconds: limits.defaultTimeoutSeconds ?? 30,
  };
  for (const key of ["maxDepth", "maxPerReply", "maxConcurrent", "maxPerSession"] as const) {
    const value = resolved[key];
    if (!Number.isInteger(value) || value < 1) {
      throw new TypeError(`agentSpawner: limits.${key} must be a positive integer, got ${value}`);
    }
  }
  const timeout = resolved.defaultTimeoutSeconds;
  if (typeof timeout !== "number" || !(timeout >= 0 && timeout <= MAX_SPAWN_TIMEOUT_SECONDS)) {
    throw new TypeError(`agentSpawner: limits.defaultTimeoutSeconds must be 0-${MAX_SPAWN_TIMEOUT_SECONDS}`);
  }
  if (limits.maxTokensPerSession !== undefined) {
    if (!Number.isInteger(limits.maxTokensPerSession) || limits.maxTokensPerSession < 1) {
      throw new TypeError("agentSpawner: limits.maxTokensPerSession must be a positive integer");
    }
    resolved.maxTokensPerSession = limits.maxTokensPerSession;
  }
  return resolved;
}

/** What a session's spawns look like when a new one is asked for. */
export interface SpawnCounts {
  /** Depth of the agent asking (0: the top-level agent). */
  depth: number;
  inThisReply: number;
  running: number;
  started: number;
  tokens: number;
}

/** The refusal for a spawn over a limit (naming the limit), or undefined when it may start. */
export function overLimit(limits: ResolvedLimits, counts: SpawnCounts): string | undefined {
  if (counts.depth + 1 > limits.maxDepth) {
    return `limit "maxDepth" reached: sub-agents nest at most ${limits.maxDepth} deep, and this agent is at depth ${counts.depth}. Do the work yourself.`;
  }
  if (counts.inThisReply >= limits.maxPerReply) {
    return `limit "maxPerReply" reached: one reply may start at most ${limits.maxPerReply} sub-agents.`;
  }
  if (counts.running >= limits.maxConcurrent) {
    return `limit "maxConcurrent" reached: ${counts.running} sub-agents of this session are running (at most ${limits.maxConcurrent}); wait for one (agent_wait) or cancel one (agent_cancel).`;
  }
  if (counts.started >= limits.maxPerSession) {
    return `limit "maxPerSession" reached: this session has started ${counts.started} sub-agents (at most ${limits.maxPerSession}).`;
  }
  if (limits.maxTokensPerSession !== undefined && counts.tokens >= limits.maxTokensPerSession) {
    return `limit "maxTokensPerSession" reached: the sub-agents of this session used ${counts.tokens} tokens (budget ${limits.maxTokensPerSession}).`;
  }
  return undefined;
}
