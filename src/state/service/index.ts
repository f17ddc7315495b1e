// The service's side of the store families, for agentscope's own service (app/): not part of the
// public `agentscope/state` entry. app/ re-exports the public names of it.
export { familyOf, STORE_FAMILIES, supportedUrls } from "../store-families.js";
export type { StoreFamily } from "../store-family.js";
export { splitStoreUrl } from "../store-family.js";
export { FencedError, isFenced } from "./fenced-error.js";
export { ownerIsGone } from "./lease-owner.js";
export { newestEvent } from "./newest-event.js";
export {
  type AbandonedLease,
  type BackendOptions,
  type BusMessage,
  DEFAULT_LOCK_TTL_MS,
  DEFAULT_MAX_EVENTS,
  type EventLog,
  type LoggedEvent,
  type RunCheckpoint,
  type RunEnd,
  type RunEndResult,
  type RunLease,
  type RunLocks,
  type ServiceBackend,
  type ServiceBus,
  type SessionDirectory,
  type SessionRecord,
  type SessionRecordPage,
} from "./service-backend.js";
