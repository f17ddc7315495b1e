import type { BackendOptions, ServiceBackend } from "./service/service-backend.js";
import type { AgentStateStore } from "./store.js";

export interface StateStoreOptions {
  /** Table for the SQL stores. */
  table?: string;
  /** Key prefix for Redis (the same name the service backends use). */
  prefix?: string;
}

/**
 * Everything one driver keeps, reached from one URL: its state store and, where it has one, the
 * service backend (event log, run locks, bus, session directory) on the same server. Both are opened
 * from the URL as the family parses it, so a store and the service pointed at the same URL see the
 * same data. Drivers load on first use: a family costs nothing until its scheme is used.
 */
export interface StoreFamily {
  /** Its URL schemes, lower case, without the colon. */
  readonly schemes: readonly string[];
  /** How its URL is written, in the list of supported URLs. */
  readonly example: string;
  /** The state store, connected and ready (a bad URL or a server that is down rejects here). */
  openStore(url: string, options: StateStoreOptions): Promise<AgentStateStore>;
  /** The service backend, connected and ready; absent when the family has none (`noBackend` says why). */
  openBackend?(url: string, options: BackendOptions): Promise<ServiceBackend>;
  /** Why the family cannot back the service, when it cannot: one sentence, for the error. */
  readonly noBackend?: string;
}

/** The scheme of a store URL, lower case ("" when it has none), and what follows its colon. */
export function splitStoreUrl(url: string): { scheme: string; rest: string } {
  const scheme = /^([a-z][a-z0-9+.-]*):/i.exec(url)?.[1]?.toLowerCase() ?? "";
  return { scheme, rest: scheme ? url.slice(scheme.length + 1) : url };
}
