export type {
  Checkpoint,
  CheckpointKind,
  CheckpointWorkspace,
  MemoryWrite,
  TimelineHead,
} from "./checkpoint.js";
export { CheckpointUnavailableError } from "./checkpoint-errors.js";
export {
  type CheckpointBlob,
  type CheckpointStore,
  getBlob,
  type StoredCheckpointRecord,
} from "./checkpoint-store.js";
export { InMemoryCheckpointStore } from "./memory-checkpoint-store.js";
export type { CheckpointMemory, MemoryOnRewind } from "./memory-snapshot.js";
export { openCheckpointStore } from "./open-checkpoint-store.js";
export { type CheckpointRetention, DEFAULT_RETENTION } from "./retention.js";
export { type RecordOptions, SessionTimeline, type SessionTimelineOptions } from "./session-timeline.js";
export {
  type ForkResult,
  type ForkTarget,
  forkFrom,
  type RewindOptions,
  type RewindResult,
  rewindTo,
  type TimeTravelSubject,
} from "./time-travel.js";
export type { RestoreSummary } from "./workspace-restore.js";
export type { SnapshotScope, WorkspaceSnapshot } from "./workspace-snapshot.js";
