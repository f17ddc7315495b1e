import { ValidationError } from "../message/index.js";
import type { AgentState } from "./agent-state.js";
import { decodeState } from "./state-codec.js";

/** A patch as a store read it back: the version its save wrote, and its JSON (text, or parsed). */
export interface StoredPatch {
  version: number;
  patch: unknown;
}

type Fields = Record<string, unknown>;

const isRecord = (value: unknown): value is Fields =>
  typeof value === "object" && value !== null && !Array.isArray(value);

/**
 * The state a store holds: its snapshot (saved at `snapshotVersion`) with the patches after it applied
 * in order (`state-delta.ts` writes them: the context from `from` on replaced by `messages`, the
 * fields of `set` set, those of `unset` removed), then validated as `decodeState` does. Damage is a
 * ValidationError naming the session and what is wrong (a patch missing from the sequence, a field of
 * a patch, a field of the result), never a silent reset.
 */
export function decodeStoredState(
  sessionId: string,
  snapshot: unknown,
  snapshotVersion: number,
  patches: readonly StoredPatch[],
): AgentState {
  if (patches.length === 0) return decodeState(sessionId, snapshot);
  return decodeState(sessionId, applyStoredPatches(sessionId, snapshot, snapshotVersion, patches));
}

/**
 * The snapshot with the patches applied, checked only for their shape (a missing patch, a bad
 * `from`, ...): the result is not validated. `each` sees every patch as applied, with its place.
 */
export function applyStoredPatches(
  sessionId: string,
  snapshot: unknown,
  snapshotVersion: number,
  patches: readonly StoredPatch[],
  each?: (index: number, version: number, patch: Fields) => void,
): Fields {
  const what = `stored AgentState of session ${JSON.stringify(sessionId)}`;
  const state = parsed(snapshot, what, "snapshot");
  if (!isRecord(state) || !Array.isArray(state.context)) {
    throw new ValidationError(
      what,
      "context",
      `the snapshot (version ${snapshotVersion}) has no context array to patch`,
    );
  }
  patches.forEach(({ version, patch }, i) => {
    const expected = snapshotVersion + i + 1;
    if (version !== expected) {
      throw new ValidationError(
        what,
        `patch ${String(version)}`,
        `comes after version ${expected - 1}: the patch of version ${expected} is missing`,
      );
    }
    const body = parsed(patch, what, `patch ${version}`);
    apply(state as Fields & { context: unknown[] }, body, what, `patch ${version}`);
    each?.(i, version, body as Fields);
  });
  return state;
}

function parsed(value: unknown, what: string, path: string): unknown {
  if (typeof value !== "string") return value;
  try {
    return JSON.parse(value);
  } catch (error) {
    throw new ValidationError(what, path, `is not JSON (${(error as Error).message})`);
  }
}

function apply(state: Fields & { context: unknown[] }, patch: unknown, what: string, path: string): void {
  if (!isRecord(patch)) throw new ValidationError(what, path, "is not an object");
  const { from, messages, set, unset } = patch;
  if (!Number.isSafeInteger(from) || (from as number) < 0 || (from as number) > state.context.length) {
    throw new ValidationError(
      what,
      `${path}.from`,
      `must be a whole number from 0 to ${state.context.length} (the messages before it), got ${JSON.stringify(from)}`,
    );
  }
  if (!Array.isArray(messages)) throw new ValidationError(what, `${path}.messages`, "is not an array");
  if (set !== undefined && !isRecord(set)) throw new ValidationError(what, `${path}.set`, "is not an object");
  if (unset !== undefined && !(Array.isArray(unset) && unset.every((key) => typeof key === "string"))) {
    throw new ValidationError(what, `${path}.unset`, "is not an array of field names");
  }
  for (const key of [...Object.keys(set ?? {}), ...((unset as string[] | undefined) ?? [])]) {
    if (key === "context")
      throw new ValidationError(what, `${path}.set`, "names context, which only `messages` changes");
  }
  state.context.length = from as number;
  for (const msg of messages) state.context.push(msg);
  for (const [key, value] of Object.entries(set ?? {})) {
    // defined, not assigned: a field named __proto__ stays a field (and the schema drops it)
    Object.defineProperty(state, key, { value, enumerable: true, writable: true, configurable: true });
  }
  for (const key of (unset as string[] | undefined) ?? []) delete state[key];
}
