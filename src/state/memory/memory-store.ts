import { AGENT_STATE_VERSION, type AgentState } from "../agent-state.js";
import { pageOf } from "../session-paging.js";
import { assertSessionId, decodeState, encodeState } from "../state-codec.js";
import type {
  AgentStateStore,
  ListOptions,
  SaveOptions,
  SessionPage,
  SessionSummary,
  StoredState,
} from "../store.js";
import { StateConflictError } from "../store-errors.js";
import type { StoreScheme } from "../store-family.js";

interface Entry extends SessionSummary {
  json: string;
}

/**
 * States in this process's memory, kept as JSON so a loaded state never aliases a saved one. For tests
 * and single-process use; everything is lost when the process ends. Nothing else can write here, so a
 * load of a current-version state only parses its JSON back (what was saved is what comes back); the
 * schema check, which costs as much again as the parse on a long conversation and ran on every
 * reply's load, is left to older versions, which it migrates.
 */
export class InMemoryStateStore implements AgentStateStore {
  readonly #entries = new Map<string, Entry>();

  async load(sessionId: string): Promise<StoredState | undefined> {
    assertSessionId(sessionId);
    const entry = this.#entries.get(sessionId);
    if (!entry) return undefined;
    const state = JSON.parse(entry.json) as AgentState;
    return {
      state: state.schemaVersion === AGENT_STATE_VERSION ? state : decodeState(sessionId, state),
      version: entry.version,
    };
  }

  async save(sessionId: string, state: AgentState, options: SaveOptions): Promise<{ version: number }> {
    const json = encodeState(sessionId, state, options);
    const actual = this.#entries.get(sessionId)?.version ?? 0;
    if (actual !== options.expectedVersion) {
      throw new StateConflictError(sessionId, options.expectedVersion, actual);
    }
    const version = actual + 1;
    this.#entries.set(sessionId, { sessionId, version, updatedAt: new Date().toISOString(), json });
    return { version };
  }

  async delete(sessionId: string): Promise<boolean> {
    assertSessionId(sessionId);
    return this.#entries.delete(sessionId);
  }

  async list(options?: ListOptions): Promise<SessionPage> {
    return pageOf(
      [...this.#entries.values()].map(({ sessionId, version, updatedAt }) => ({
        sessionId,
        version,
        updatedAt,
      })),
      options,
    );
  }

  async close(): Promise<void> {}
}

/** In this process only, gone when it exits. */
export const memoryScheme: StoreScheme = {
  schemes: ["memory"],
  example: "memory:",
  openStore: async () => new InMemoryStateStore(),
};
