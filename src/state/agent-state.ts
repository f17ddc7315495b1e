import { isAbsolute } from "node:path";
import { z } from "zod";
import { type Msg, MsgSchema, parseJsonOrThrow, parseWith } from "../message/index.js";
import type { PermissionContext } from "../permission/index.js";
import { type Task, TaskSchema } from "../protocol/task.js";
import { migrateTasksV1 } from "./task-migration.js";

export const AGENT_STATE_VERSION = 2;

/** Why the in-flight reply is waiting, if it is. */
export type WaitingFor = "user_confirm" | "external_execution";

/** The reply in flight. Its assistant Msg is the last Msg of `context` (id = replyId). */
export interface ReplyContext {
  replyId: string;
  /** Reasoning-acting iterations done so far. */
  iteration: number;
  waitingFor?: WaitingFor;
  /** The reply was asked for structured output (the schema itself is passed again on resume). */
  structuredOutput?: boolean;
  /** How that structured output is produced, as chosen when the reply started (absent: the tool). */
  structuredOutputMode?: "tool" | "native";
  /**
   * Tool calls of this reply that wait on a paused nested run (a sub-agent), keyed by the nested
   * reply id an answer carries (the sub-agent's own, and those of its nested runs). An answer with
   * such a replyId continues that tool call instead of this reply's own calls.
   */
  suspended?: Record<string, SuspendedCall>;
  /**
   * What untrusted content this reply has read ("a web page (web_fetch)"), or started with (the
   * marks of `AgentState.taint` still in memory), when the agent tracks taint.
   */
  taint?: string[];
  /** The marks this reply makes outlive it (kept in `AgentState.taint`): its agent's taint scope is "memory". */
  keepsTaint?: true;
  /**
   * The effects of this reply's tool calls, by call id: stored before a tool that is not read-only
   * starts, so a crash while it runs is known afterwards (its outcome is unknown) and a run again
   * gets the same key.
   */
  effects?: Record<string, EffectRecord>;
  /** What each waiting call's pause depended on, by call id (see `PauseFingerprint`). */
  fingerprints?: Record<string, PauseFingerprint>;
}

/** One tool call's effect: its idempotency key, and what the crash recovery needs to know. */
export interface EffectRecord {
  /** The key the tool gets as `ctx.idempotencyKey`, the same on every run of the effect. */
  key: string;
  /** When it (last) started (ISO 8601). */
  startedAt: string;
  /** The tool declared itself idempotent: a run cut off is run again with the key, unasked. */
  idempotent?: boolean;
  /** This call runs again the effect of that call (whose outcome was unknown). */
  retryOf?: string;
}

/**
 * What a paused call depends on, as it was when it paused: the tool (name, a digest of its JSON
 * Schema, its permission behaviour), the agent's rules and mode, the model. Compared on resume.
 */
export interface PauseFingerprint {
  tool: string;
  schema: string;
  behaviour: string[];
  rules: string[];
  mode: string;
  model: string;
}

/**
 * Untrusted content in the session's memory, kept across replies by an agent that tracks taint: what
 * it was, in words for an ask ("a web page (web_fetch)"), and the context messages that hold it (the
 * reply whose tool read it, an observed message). A reply starts marked with every mark one of whose
 * messages is still in `context`; when they have all left it (cleared, deleted, rewound) the mark goes.
 */
export interface TaintMark {
  reason: string;
  /** Ids of the messages of `context` that hold the content. */
  messages: string[];
  /** A compression summary replaced some of those messages: the mark lasts as long as `summary` does. */
  summary?: true;
}

/** A tool call whose nested run (e.g. a sub-agent) paused, and what that run waits for. */
export interface SuspendedCall {
  toolCallId: string;
  waitingFor: WaitingFor;
}

/**
 * Everything an agent needs to continue a session, as plain JSON. A pause lives here entirely:
 * save it, load it in another process, and the same reply resumes.
 */
export interface AgentState {
  schemaVersion: typeof AGENT_STATE_VERSION;
  sessionId: string;
  context: Msg[];
  /** Summary of compressed older context, sent right after the system prompt. */
  summary?: string;
  replyContext?: ReplyContext;
  /** Untrusted content still in memory (see TaintMark); absent when there is none or nothing tracks it. */
  taint?: TaintMark[];
  permission: PermissionContext;
  /** Per-session tool data (e.g. the Read tool's cache of read files). */
  toolContext: Record<string, unknown>;
  /** The session's task list (the task tools write it; see `Task`). */
  tasks: Task[];
  /** Per-middleware session data, keyed by middleware name. */
  middleware: Record<string, unknown>;
}

export const PermissionRuleSchema = z.object({
  toolName: z.string().min(1),
  ruleContent: z.string().optional(),
  behavior: z.enum(["allow", "deny", "ask"]),
  source: z.enum(["user", "project", "session", "config", "cli", "confirmation"]),
});

export const PermissionContextSchema = z.object({
  mode: z.enum(["default", "accept_edits", "explore", "bypass", "dont_ask", "plan"]),
  rules: z.array(PermissionRuleSchema),
  workingDirectories: z.array(z.string()),
  /** Optional: states saved before sessions had a boundary load without one. */
  boundary: z
    .object({
      directory: z.string().min(1).refine(isAbsolute, "must be an absolute path"),
      sandboxedTools: z.array(z.string().min(1)).optional(),
    })
    .optional(),
});

export const ReplyContextSchema = z.object({
  replyId: z.string().min(1),
  iteration: z.number().int().nonnegative(),
  waitingFor: z.enum(["user_confirm", "external_execution"]).optional(),
  structuredOutput: z.boolean().optional(),
  structuredOutputMode: z.enum(["tool", "native"]).optional(),
  suspended: z
    .record(
      z.string(),
      z.object({ toolCallId: z.string().min(1), waitingFor: z.enum(["user_confirm", "external_execution"]) }),
    )
    .optional(),
  taint: z.array(z.string()).optional(),
  keepsTaint: z.literal(true).optional(),
  effects: z
    .record(
      z.string(),
      z.object({
        key: z.string().min(1),
        startedAt: z.string(),
        idempotent: z.boolean().optional(),
        retryOf: z.string().optional(),
      }),
    )
    .optional(),
  fingerprints: z
    .record(
      z.string(),
      z.object({
        tool: z.string(),
        schema: z.string(),
        behaviour: z.array(z.string()),
        rules: z.array(z.string()),
        mode: z.string(),
        model: z.string(),
      }),
    )
    .optional(),
});

export const TaintMarkSchema = z.object({
  reason: z.string().min(1),
  messages: z.array(z.string().min(1)),
  summary: z.literal(true).optional(),
});

export const AgentStateSchema = z.object({
  schemaVersion: z.literal(AGENT_STATE_VERSION),
  sessionId: z.string().min(1),
  context: z.array(MsgSchema),
  summary: z.string().optional(),
  replyContext: ReplyContextSchema.optional(),
  taint: z.array(TaintMarkSchema).optional(),
  permission: PermissionContextSchema,
  toolContext: z.record(z.string(), z.unknown()),
  tasks: z.array(TaskSchema),
  middleware: z.record(z.string(), z.unknown()),
});

export function emptyAgentState(sessionId: string, permission?: Partial<PermissionContext>): AgentState {
  return {
    schemaVersion: AGENT_STATE_VERSION,
    sessionId,
    context: [],
    permission: { mode: "default", rules: [], workingDirectories: [], ...permission },
    toolContext: {},
    tasks: [],
    middleware: {},
  };
}

/** Migrations from each older schema version to the next; keyed by the version they upgrade from. */
export const STATE_MIGRATIONS: Record<number, (state: Record<string, unknown>) => Record<string, unknown>> = {
  // v2 types the task list (v1 held untyped records no tool wrote).
  1: (state) => ({
    ...state,
    schemaVersion: 2,
    tasks: migrateTasksV1(state.tasks, new Date().toISOString()),
  }),
};

/**
 * Validates a stored state (JSON string or parsed), migrating older versions forward. A corrupt state
 * is an error naming the bad field, never a silent reset.
 */
export function parseAgentState(json: unknown): AgentState {
  let value = typeof json === "string" ? parseJsonOrThrow(json, "AgentState") : json;
  if (value && typeof value === "object") {
    let version = (value as { schemaVersion?: unknown }).schemaVersion;
    while (typeof version === "number" && version < AGENT_STATE_VERSION) {
      const migrate = STATE_MIGRATIONS[version];
      if (!migrate) break;
      value = migrate(value as Record<string, unknown>);
      version = (value as { schemaVersion?: unknown }).schemaVersion;
    }
  }
  return parseWith(AgentStateSchema, value, "AgentState") as AgentState;
}
