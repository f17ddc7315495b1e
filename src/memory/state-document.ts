import { type AgentStateStore, emptyAgentState, StateConflictError } from "../state/index.js";

/** How many times `update` reloads and reapplies a change that lost a compare-and-set race. */
const MAX_ATTEMPTS = 20;

/**
 * One JSON value kept in an AgentStateStore under a reserved document id (a "session" nobody
 * chats in), so it lives wherever the service keeps its state and every replica sees it. Updates
 * are compare-and-set: a change that lost a race is reapplied to the fresher value.
 * Ids contain `/`, which the service never allows in a session id, so no chat session can collide.
 */
export class StateDocument<T> {
  readonly #store: AgentStateStore;
  readonly #id: string;
  readonly #empty: () => T;
  readonly #parse: (value: unknown) => T;

  constructor(store: AgentStateStore, id: string, empty: () => T, parse: (value: unknown) => T) {
    if (!id.includes("/")) throw new TypeError(`StateDocument: the id must contain "/" (got "${id}")`);
    this.#store = store;
    this.#id = id;
    this.#empty = empty;
    this.#parse = parse;
  }

  async read(): Promise<T> {
    return (await this.#load()).value;
  }

  /** Applies `change` to a fresh copy and saves it; returns what `change` returned. */
  async update<R>(change: (value: T) => R | Promise<R>): Promise<R> {
    for (let attempt = 1; ; attempt++) {
      const { value, version } = await this.#load();
      const result = await change(value);
      const state = emptyAgentState(this.#id);
      state.middleware.document = value as unknown;
      try {
        await this.#store.save(this.#id, state, { expectedVersion: version });
        return result;
      } catch (error) {
        if (!(error instanceof StateConflictError) || attempt >= MAX_ATTEMPTS) throw error;
        // Back off a random while so racing writers stop colliding.
        await new Promise((resolve) => setTimeout(resolve, Math.random() * 5 * attempt));
      }
    }
  }

  /** Removes the document. */
  async delete(): Promise<void> {
    await this.#store.delete(this.#id);
  }

  async #load(): Promise<{ value: T; version: number }> {
    const stored = await this.#store.load(this.#id);
    if (!stored) return { value: this.#empty(), version: 0 };
    const raw = stored.state.middleware.document;
    return { value: raw === undefined ? this.#empty() : this.#parse(raw), version: stored.version };
  }
}
