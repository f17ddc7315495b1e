import type { BackendOptions, ServiceBackend } from "./service/service-backend.js";
import type { AgentStateStore } from "./store.js";

export interface StateStoreOptions {
  /** Table for the SQL stores. */
  table?: string;
  /** Key prefix for Redis (the same name the service backends use). */
  prefix?: string;
}

/**
 * What a driver's store module (`<driver>-store.ts`) says of its URLs: the schemes, how one is
 * written, the store opened from one (with the URL parser its backend uses too), and, for a driver
 * that has no service backend, why not.
 */
export interface StoreScheme {
  /** Its URL schemes, lower case, without the colon. */
  readonly schemes: readonly string[];
  /** How its URL is written, in the list of supported URLs. */
  readonly example: string;
  /** The state store, connected and ready (a bad URL or a server that is down rejects here). */
  openStore(url: string, options: StateStoreOptions): Promise<AgentStateStore>;
  /** Why the driver cannot back the service, when it has no backend module: one sentence, for the error. */
  readonly noBackend?: string;
}

/** What a driver's backend module (`<driver>-backend.ts`) exports for its family. */
export interface BackendModule {
  /** The service backend for a URL of the driver's schemes, connected and ready. */
  openBackend(url: string, options: BackendOptions): Promise<ServiceBackend>;
}

/**
 * Everything one driver keeps, reached from one URL: its state store and, where it has one, the
 * service backend (event log, run locks, bus, session directory) on the same server. Both are opened
 * from the URL as the driver parses it, so a store and the service pointed at the same URL see the
 * same data. Drivers load on first use: a family costs nothing until its scheme is used.
 */
export interface StoreFamily extends StoreScheme {
  /** The service backend, connected and ready; absent when the family has none (`noBackend` says why). */
  openBackend?(url: string, options: BackendOptions): Promise<ServiceBackend>;
}

/**
 * A driver's family: its store module's scheme and, unless the scheme says `noBackend`, its backend
 * module loaded on the first `openBackend` (the store module never imports its backend: the backend
 * builds on the store, so that import would be a cycle).
 */
export function storeFamily(scheme: StoreScheme & { noBackend: string }): StoreFamily;
export function storeFamily(scheme: StoreScheme, backend: () => Promise<BackendModule>): StoreFamily;
export function storeFamily(scheme: StoreScheme, backend?: () => Promise<BackendModule>): StoreFamily {
  if (!backend) return scheme;
  return { ...scheme, openBackend: async (url, options) => (await backend()).openBackend(url, options) };
}

/** The scheme of a store URL, lower case ("" when it has none), and what follows its colon. */
export function splitStoreUrl(url: string): { scheme: string; rest: string } {
  const scheme = /^([a-z][a-z0-9+.-]*):/i.exec(url)?.[1]?.toLowerCase() ?? "";
  return { scheme, rest: scheme ? url.slice(scheme.length + 1) : url };
}
