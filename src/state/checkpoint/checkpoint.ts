import { z } from "zod";
import { parseJsonOrThrow, parseWith } from "../../message/index.js";
import type { PermissionRule } from "../../permission/index.js";
import { PermissionRuleSchema, type WaitingFor } from "../agent-state.js";
import { HASH } from "./content-hash.js";
import type { WorkspaceSnapshot } from "./workspace-snapshot.js";

/** Why a checkpoint was taken. */
export type CheckpointKind = "start" | "reply_end" | "pause" | "rewind" | "fork" | "manual";

/** A memory tool call that changed the memory directory, as the conversation records it. */
export interface MemoryWrite {
  toolCallId: string;
  command: string;
  path?: string;
  /** A rename's target (`path` is its source). */
  newPath?: string;
}

/** The workspace part of a checkpoint: kept, or pruned by retention (then it cannot be restored). */
export type CheckpointWorkspace =
  | ({ status: "kept" } & WorkspaceSnapshot)
  | { status: "pruned"; files: number; bytes: number; prunedAt: string };

/**
 * One point of a session a fork or a rewind can go back to: the state as it was (conversation, reply
 * context, permission context with its grants, tool and middleware data), the event-log position and
 * a snapshot of the session's workspace. Checkpoints form a tree: `parent` is the checkpoint before
 * it on its line; `branch` names the line (a rewind starts a new one, so the line rewound away stays).
 */
export interface Checkpoint {
  id: string;
  sessionId: string;
  /** Increases by one per checkpoint of the session. */
  seq: number;
  kind: CheckpointKind;
  /** ISO 8601. */
  createdAt: string;
  branch: string;
  parent?: string;
  /** The state version this checkpoint holds (the store's version once the state was saved). */
  stateVersion: number;
  /** The event log's newest seq when it was taken (service sessions). */
  logSeq?: number;
  /** Messages in the conversation, and the id and role of the last one. */
  messages: number;
  lastMessage?: { id: string; role: string; text: string };
  /** The reply the session waits on, when it was taken at a pause. */
  waitingFor?: WaitingFor;
  /** Blob of the state without its conversation; blob of the conversation's message list. */
  stateBlob: string;
  contextBlob: string;
  /** Absent: the session has no workspace. */
  workspace?: CheckpointWorkspace;
  /** Permission rules added by answers and the session (sources `confirmation`, `session`). */
  grants: PermissionRule[];
  /** Memory writes made since the checkpoint before it on its line (a rewind keeps them unless told to revert them). */
  memoryWrites: MemoryWrite[];
  /** Blob listing the memory directory's files then (with a timeline given the session's memory). */
  memory?: { snapshot: string };
  /** Bytes this checkpoint added to the store (blobs no earlier checkpoint held). */
  addedBytes: number;
}

/** Where the session is on its timeline: the branch it is on and the checkpoint its next one follows. */
export interface TimelineHead {
  branch: string;
  at?: string;
  nextSeq: number;
  /** Set on a fork: the session and checkpoint it started from. */
  origin?: { sessionId: string; checkpoint: string };
  /** Every branch: the checkpoint it started from (none: the first branch) and when. */
  branches: Record<string, { from?: string; createdAt: string }>;
}

const hash = z.string().regex(HASH, "is not a SHA-256 hex digest");
const count = z.number().int().min(0);

const CheckpointSchema = z.object({
  id: z.string().min(1),
  sessionId: z.string().min(1),
  seq: z.number().int().min(1),
  kind: z.enum(["start", "reply_end", "pause", "rewind", "fork", "manual"]),
  createdAt: z.string().min(1),
  branch: z.string().min(1),
  parent: z.string().min(1).optional(),
  stateVersion: count,
  logSeq: count.optional(),
  messages: count,
  lastMessage: z.object({ id: z.string(), role: z.string(), text: z.string() }).optional(),
  waitingFor: z.enum(["user_confirm", "external_execution"]).optional(),
  stateBlob: hash,
  contextBlob: hash,
  workspace: z
    .discriminatedUnion("status", [
      z.object({ status: z.literal("kept"), tree: hash, files: count, bytes: count, skipped: count }),
      z.object({ status: z.literal("pruned"), files: count, bytes: count, prunedAt: z.string() }),
    ])
    .optional(),
  grants: z.array(PermissionRuleSchema),
  memoryWrites: z.array(
    z.object({
      toolCallId: z.string(),
      command: z.string(),
      path: z.string().optional(),
      newPath: z.string().optional(),
    }),
  ),
  memory: z.object({ snapshot: hash }).optional(),
  addedBytes: count,
});

const HeadSchema = z.object({
  branch: z.string().min(1),
  at: z.string().min(1).optional(),
  nextSeq: z.number().int().min(1),
  origin: z.object({ sessionId: z.string().min(1), checkpoint: z.string().min(1) }).optional(),
  branches: z.record(z.string(), z.object({ from: z.string().min(1).optional(), createdAt: z.string() })),
});

export function parseCheckpoint(json: string, key: string): Checkpoint {
  const what = `checkpoint ${key}`;
  return parseWith(CheckpointSchema, parseJsonOrThrow(json, what), what) as Checkpoint;
}

export function parseTimelineHead(json: string, sessionId: string): TimelineHead {
  const what = `timeline head of session ${JSON.stringify(sessionId)}`;
  return parseWith(HeadSchema, parseJsonOrThrow(json, what), what) as TimelineHead;
}

/** Record keys: checkpoints sort by seq, before the head. */
export const checkpointKey = (seq: number) => `c:${String(seq).padStart(12, "0")}`;
export const checkpointId = (seq: number) => `cp-${seq}`;
/** The seq of a checkpoint id (`cp-12` → 12), or undefined when it is not one. */
export function seqOfCheckpointId(id: string): number | undefined {
  const match = /^cp-([1-9][0-9]{0,11})$/.exec(id);
  return match ? Number(match[1]) : undefined;
}
export const HEAD_KEY = "head";
