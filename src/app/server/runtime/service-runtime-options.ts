import type { AgentOptions } from "../../../agent/index.js";
import type { DecisionChannel } from "../../../event/index.js";
import type { ServiceBackend, SessionRecord } from "../backend/types.js";
import type { StopSignal } from "./follower.js";
import type { RunLimits } from "./run-slots.js";
import type { ServiceLog } from "./service-log.js";
import type { ServiceCheckpointOptions } from "./session-time-travel.js";
import type { StreamLimits } from "./stream-slots.js";

/** An agent the service offers: Agent options without `checkpoint` (the service saves the state). */
export type ServiceAgentOptions = Omit<AgentOptions, "checkpoint" | "state" | "sessionId">;

export interface ServiceRuntimeOptions {
  backend: ServiceBackend;
  /** The first one answers sessions created without naming an agent. */
  agents: ServiceAgentOptions[];
  /** Keep-alive interval of followers (default 15 s). */
  heartbeatMs?: number;
  /** How long after it was taken or last renewed each run's lock is renewed (default a third of the backend's lock TTL). */
  renewEveryMs?: number;
  /** Runs at once on this replica (default 100); more are refused (`rate_limit`, with a retry delay). */
  maxConcurrentRuns?: number;
  /** Runs at once per user, the per-user part of `limits` (kept separate for the config file). */
  limits?: Omit<RunLimits, "maxConcurrentRuns">;
  /**
   * How often a follower of a reply in flight checks that its run is alive (default 5 s). A run whose
   * lease expired (or whose process on this host died) has its reply closed then: see `recover`.
   */
  recoverCheckMs?: number;
  /** After closing a cut-off reply, continue the session with a new reply (the model sees the interrupted results; no tool runs again). */
  resumeOnRecovery?: boolean;
  /**
   * How often this replica's recovery sweeper looks for runs whose lease expired unreleased (of every
   * user) and closes their cut-off replies, whether or not anyone follows them (default 5 s; it also
   * sweeps once at start). Backends without `RunLocks.abandoned` (memory) have nothing to sweep.
   */
  sweepEveryMs?: number;
  /** Where the runtime reports fenced runs, lost leases and what the sweeper closed (default: nowhere). */
  log?: ServiceLog;
  /** Called after a session is deleted (e.g. to remove its workspace). */
  onSessionDeleted?: (record: SessionRecord) => void | Promise<void>;
  /** Open event streams per user, and when a stream whose client does not read is dropped. */
  streams?: StreamLimits;
  /** Checkpoints at every session start, reply end and pause, for rewind and fork (docs/time-travel.md). */
  checkpoints?: ServiceCheckpointOptions;
  /** A user's roles, for the agents' approver policies (`agentscope serve`: from AGENTSCOPE_TOKENS and `roles`). */
  rolesOf?: (user: string) => readonly string[];
}

/** How an answer (or a reply) came: the channel, for its records, and the request's `Idempotency-Key`. */
export interface AnswerHow {
  /** Default `rest`. */
  via?: DecisionChannel;
  idempotencyKey?: string;
  /**
   * `confirm`: the caller may answer as a named approver in a session they do not own (the asks an
   * approver policy lets them answer, nothing else). Only for channels whose answer shows nothing
   * of the session (the REST confirm route); without it another user's session is "not found".
   */
  asApprover?: boolean;
}

export interface FollowSessionOptions {
  /** Events after this id (default: from the first). */
  after?: number;
  /** Stops the follower: an AbortSignal's, or any StopSignal. */
  signal: StopSignal;
  /** Stop once this resolves (e.g. `handle.done`) and its events are yielded. */
  until?: Promise<unknown>;
}
