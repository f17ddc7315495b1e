import { randomUUID } from "node:crypto";
import type { Msg } from "../message/index.js";
import type { AgentState } from "./agent-state.js";
import { checkSaveArguments, checkStorable } from "./state-codec.js";
import type { SaveOptions } from "./store.js";

/**
 * A save as a store writes it: the whole state (a snapshot), or a patch on the state saved before
 * it. Every save has a `head`, an id of its own; a patch applies only while the stored head is its
 * `base` (and the version the expected one), so it never lands on a state other than the one it
 * was computed against (another process's save, a session deleted and created again).
 */
export type PlannedSave =
  | { kind: "snapshot"; json: string; head: string }
  | { kind: "patch"; json: string; head: string; base: string };

/**
 * When a store writes a snapshot instead of a patch (compaction). A load reads the snapshot and every
 * patch after it, so the patches are kept to about the snapshot's size: the snapshots a session writes
 * then add up to a constant number of bytes per save, whatever its length.
 */
export interface CompactionPolicy {
  /** Patches after one snapshot at most; default 1,000. */
  maxPatches?: number;
  /** A snapshot once the patches add up to more characters than it, and than this; default 256 Ki. */
  minCompactChars?: number;
}

export const DEFAULT_COMPACTION: Required<CompactionPolicy> = {
  maxPatches: 1000,
  minCompactChars: 256 * 1024,
};

/** What a store read with a state, for the saves that follow to patch it. */
export interface StoredChain {
  version: number;
  /** The head of the last save; null for a state an older version stored (its next save is a snapshot). */
  head: string | null;
  /** Characters of the snapshot's JSON and of the patches after it, and how many they are. */
  snapshotChars: number;
  patchChars: number;
  patches: number;
}

/**
 * The last saved state as far as a patch needs it: the messages by reference (with their content
 * arrays and lengths, to notice one changed in place), and the JSON of every other field.
 */
interface Base extends StoredChain {
  sessionId: string;
  head: string;
  messages: Msg[];
  contents: unknown[];
  lengths: Array<number | undefined>;
  fields: Map<string, string>;
}

/** What changed since the base. */
interface Diff {
  from: number;
  changed: Map<string, string>;
  unset: string[];
  json: string;
}

/** Characters of a head: 32 hex digits (a random UUID's). */
export const HEAD_LENGTH = 32;

export function newHead(): string {
  return randomUUID().replaceAll("-", "");
}

/**
 * Plans each save of a store: a patch of what changed since the state it last saved or loaded (the
 * messages from the first one that changed, and the other fields that changed), or a snapshot.
 *
 * The hot path never serialises the whole state: the messages before the last saved one are
 * compared by reference (the Msg, its content array and that array's length); only the last saved
 * Msg (the open reply's, which grows by blocks) and the messages after it are written again. So only
 * the last Msg may be changed in place below its content array (nothing in this package changes
 * another: the reply in flight is always the last Msg); replacing a Msg or its content array, or
 * adding or removing blocks, is noticed anywhere and written. Its memory of a state
 * is keyed by the state object (a WeakMap): a state the caller drops is forgotten with it.
 */
export class SaveTracker {
  readonly #bases = new WeakMap<AgentState, Base>();
  readonly #policy: Required<CompactionPolicy>;

  constructor(policy: CompactionPolicy = {}) {
    this.#policy = { ...DEFAULT_COMPACTION, ...policy };
    for (const [key, value] of Object.entries(this.#policy)) {
      if (!Number.isSafeInteger(value) || value < 1)
        throw new TypeError(`compaction.${key} must be a whole number >= 1, got ${String(value)}`);
    }
  }

  /**
   * Checks the arguments as `save` does and plans the save. It is remembered as if it will succeed:
   * if it does not, the state's next save expects another version and becomes a snapshot (or, at the
   * same version, its patch's base is not the stored head and it conflicts).
   */
  plan(sessionId: string, state: AgentState, options: SaveOptions): PlannedSave {
    checkSaveArguments(sessionId, state, options);
    const head = newHead();
    const base = this.#bases.get(state);
    if (
      base &&
      base.sessionId === sessionId &&
      base.version === options.expectedVersion &&
      Array.isArray(state.context)
    ) {
      const diff = this.#diff(base, state);
      if (diff && !this.#compactionDue(base, diff.json.length)) {
        checkStorable(sessionId, diff.json, state);
        const baseHead = base.head;
        this.#advance(base, state, diff, head);
        return { kind: "patch", json: diff.json, head, base: baseHead };
      }
    }
    const json = checkStorable(sessionId, JSON.stringify(state), state);
    const chain = {
      version: options.expectedVersion + 1,
      head,
      snapshotChars: json.length,
      patchChars: 0,
      patches: 0,
    };
    this.#bases.set(state, baseOf(sessionId, state, chain));
    return { kind: "snapshot", json, head };
  }

  /** Remembers a state a store loaded, so its next save can be a patch. */
  loaded(sessionId: string, state: AgentState, chain: StoredChain): void {
    if (chain.head === null) this.#bases.delete(state);
    else this.#bases.set(state, baseOf(sessionId, state, { ...chain, head: chain.head }));
  }

  /** Forgets what was saved of `state`: its next save is a snapshot. */
  forget(state: AgentState): void {
    this.#bases.delete(state);
  }

  #compactionDue(base: Base, chars: number): boolean {
    const { maxPatches, minCompactChars } = this.#policy;
    return (
      base.patches + 1 > maxPatches || base.patchChars + chars > Math.max(base.snapshotChars, minCompactChars)
    );
  }

  /** The patch from `base` to `state`; undefined when the context changed from its first message. */
  #diff(base: Base, state: AgentState): Diff | undefined {
    const context = state.context;
    const known = base.messages.length;
    // The first message that is not the one saved (or not saved), by reference.
    let same = Math.min(known, context.length);
    for (let i = 0; i < same; i++) {
      const msg = context[i];
      if (
        msg !== base.messages[i] ||
        msg?.content !== base.contents[i] ||
        msg?.content?.length !== base.lengths[i]
      ) {
        same = i;
        break;
      }
    }
    if (same === 0 && known > 1) return undefined; // rewritten from the start (compressed): a snapshot
    // The one before it may have changed in place: it is the last saved Msg, or it was the last Msg
    // once the messages after it were removed.
    const from = Math.max(same - 1, 0);
    const changed = new Map<string, string>();
    const present = new Set<string>();
    for (const [key, json] of fieldJson(state)) {
      present.add(key);
      if (base.fields.get(key) !== json) changed.set(key, json);
    }
    const unset = [...base.fields.keys()].filter((key) => !present.has(key));
    let json = `{"from":${from},"messages":${JSON.stringify(context.slice(from))}`;
    if (changed.size > 0) {
      json += `,"set":{${[...changed].map(([key, value]) => `${JSON.stringify(key)}:${value}`).join(",")}}`;
    }
    if (unset.length > 0) json += `,"unset":${JSON.stringify(unset)}`;
    return { from, changed, unset, json: `${json}}` };
  }

  #advance(base: Base, state: AgentState, diff: Diff, head: string): void {
    const { context } = state;
    base.messages.length = diff.from;
    base.contents.length = diff.from;
    base.lengths.length = diff.from;
    for (let i = diff.from; i < context.length; i++) remember(base, context[i]!);
    for (const [key, json] of diff.changed) base.fields.set(key, json);
    for (const key of diff.unset) base.fields.delete(key);
    base.version += 1;
    base.head = head;
    base.patchChars += diff.json.length;
    base.patches += 1;
  }
}

function remember(base: Base, msg: Msg): void {
  base.messages.push(msg);
  base.contents.push(msg?.content);
  base.lengths.push(msg?.content?.length);
}

/** The JSON of each field but `context`, as JSON.stringify of the whole state writes it (none: absent). */
function* fieldJson(state: AgentState): Generator<[string, string]> {
  for (const key of Object.keys(state)) {
    if (key === "context") continue;
    const json = JSON.stringify((state as unknown as Record<string, unknown>)[key]);
    if (json !== undefined) yield [key, json];
  }
}

function baseOf(sessionId: string, state: AgentState, chain: StoredChain & { head: string }): Base {
  const base: Base = {
    ...chain,
    sessionId,
    messages: [],
    contents: [],
    lengths: [],
    fields: new Map(fieldJson(state)),
  };
  if (Array.isArray(state.context)) for (const msg of state.context) remember(base, msg);
  return base;
}
