export {
  AGENT_STATE_VERSION,
  type AgentState,
  AgentStateSchema,
  type EffectRecord,
  emptyAgentState,
  type PauseFingerprint,
  PermissionContextSchema,
  PermissionRuleSchema,
  parseAgentState,
  type ReplyContext,
  ReplyContextSchema,
  STATE_MIGRATIONS,
  type SuspendedCall,
  type TaintMark,
  type WaitingFor,
} from "./agent-state.js";
export {
  type Checkpoint,
  type CheckpointBlob,
  type CheckpointKind,
  type CheckpointMemory,
  type CheckpointRetention,
  type CheckpointStore,
  CheckpointUnavailableError,
  type CheckpointWorkspace,
  DEFAULT_RETENTION,
  type ForkResult,
  type ForkTarget,
  forkFrom,
  getBlob,
  InMemoryCheckpointStore,
  type MemoryOnRewind,
  type MemoryWrite,
  openCheckpointStore,
  type RecordOptions,
  type RestoreSummary,
  type RewindOptions,
  type RewindResult,
  rewindTo,
  SessionTimeline,
  type SessionTimelineOptions,
  type SnapshotScope,
  type StoredCheckpointRecord,
  type TimelineHead,
  type TimeTravelSubject,
  type WorkspaceSnapshot,
} from "./checkpoint/index.js";
export { type CreateStateStoreOptions, createStateStore } from "./create-state-store.js";
export {
  JsonFileCheckpointStore,
  type JsonFileCheckpointStoreOptions,
} from "./file/json-file-checkpoint-store.js";
export { JsonFileStateStore, type JsonFileStateStoreOptions } from "./json-file-store.js";
export { InMemorySpendCounter } from "./memory/memory-spend-counter.js";
export { InMemoryStateStore } from "./memory/memory-store.js";
export { MySqlCheckpointStore, type MySqlCheckpointStoreOptions } from "./mysql/mysql-checkpoint-store.js";
export { MySqlSpendCounter, type MySqlSpendCounterOptions } from "./mysql/mysql-spend-counter.js";
export { type MySqlQueryable, MySqlStateStore, type MySqlStateStoreOptions } from "./mysql/mysql-store.js";
export { type OpenedSpendCounter, openSpendCounter } from "./open-spend-counter.js";
export {
  PostgresCheckpointStore,
  type PostgresCheckpointStoreOptions,
} from "./postgres/postgres-checkpoint-store.js";
export { PostgresSpendCounter, type PostgresSpendCounterOptions } from "./postgres/postgres-spend-counter.js";
export {
  type PgQuery,
  type PgQueryable,
  type PgSave,
  PostgresStateStore,
  type PostgresStateStoreOptions,
} from "./postgres/postgres-store.js";
export { RedisCheckpointStore, type RedisCheckpointStoreOptions } from "./redis/redis-checkpoint-store.js";
export { RedisSpendCounter, type RedisSpendCounterOptions } from "./redis/redis-spend-counter.js";
export { RedisStateStore, type RedisStateStoreOptions, redisSavePayload } from "./redis/redis-store.js";
export type {
  SpendAddOptions,
  SpendAddResult,
  SpendCounter,
} from "./spend-counter.js";
export { DEFAULT_STATE_TABLE } from "./sql-names.js";
export {
  SqliteCheckpointStore,
  type SqliteCheckpointStoreOptions,
} from "./sqlite/sqlite-checkpoint-store.js";
export {
  SqliteSpendCounter,
  type SqliteSpendCounterOptions,
  type SqliteSpendDatabase,
} from "./sqlite/sqlite-spend-counter.js";
export {
  DEFAULT_SQLITE_PATH,
  SqliteStateStore,
  type SqliteStateStoreOptions,
} from "./sqlite/sqlite-store.js";
export { decodeState, encodeState, MAX_SESSION_ID_LENGTH, replaceUnstorableChars } from "./state-codec.js";
export { type CompactionPolicy, DEFAULT_COMPACTION } from "./state-delta.js";
export type {
  AgentStateStore,
  ListOptions,
  SaveOptions,
  SessionPage,
  SessionSummary,
  StoredState,
} from "./store.js";
export { MissingDriverError, StateConflictError, StateEncodingError } from "./store-errors.js";
