// The service backend's contract lives with the store families in state/; app/ imports it from here.
export type {
  AbandonedLease,
  BackendOptions,
  BusMessage,
  EventLog,
  LoggedEvent,
  RunCheckpoint,
  RunEnd,
  RunEndResult,
  RunLease,
  RunLocks,
  ServiceBackend,
  ServiceBus,
  SessionDirectory,
  SessionRecord,
  SessionRecordPage,
} from "../../../state/service/index.js";
export { DEFAULT_LOCK_TTL_MS, DEFAULT_MAX_EVENTS } from "../../../state/service/index.js";
