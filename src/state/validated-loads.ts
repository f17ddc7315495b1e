import { createHash } from "node:crypto";
import type { z } from "zod";
import { MsgSchema, parseWith, ValidationError } from "../message/index.js";
import { AGENT_STATE_VERSION, type AgentState, AgentStateSchema } from "./agent-state.js";
import { applyStoredPatches, decodeStoredState, type StoredPatch } from "./stored-patches.js";

/** Sessions whose validated saves a store remembers at most (the oldest are forgotten first). */
const REMEMBERED_SESSIONS = 10_000;

const hash = (text: string): string => createHash("sha1").update(text).digest("base64");

/** What a store validated of one session: its snapshot's text, and the patches after it up to `through`. */
interface Validated {
  snapshot: string;
  through: number;
  /** The hash of the snapshot's text chained with each patch's text up to `through`. */
  chain: string;
}

const FIELD_SCHEMAS: Record<string, z.ZodType> = AgentStateSchema.shape;

/**
 * Loads that validate only what this store has not validated before. The schema check of a whole
 * state costs about ten times its JSON.parse and grew with the session on every reply's load; the
 * stored text of a snapshot and of each patch never changes once written, so a store remembers, per
 * session, the hash of the snapshot it validated and of the patches after it (chained). A load whose
 * snapshot and first patches hash the same parses them without the check, and checks only the
 * patches that follow: their messages (MsgSchema) and the fields they set. Anything else (a new
 * snapshot, text edited behind the store's back, a state of an older schema version) is validated
 * whole, as `decodeStoredState` does. A store that gets the snapshot already parsed (not as text)
 * always validates it whole.
 */
export class ValidatedLoads {
  readonly #sessions = new Map<string, Validated>();

  decode(
    sessionId: string,
    snapshot: unknown,
    snapshotVersion: number,
    patches: readonly StoredPatch[],
  ): AgentState {
    if (typeof snapshot !== "string" || patches.some((p) => typeof p.patch !== "string")) {
      return decodeStoredState(sessionId, snapshot, snapshotVersion, patches);
    }
    const chain = [hash(snapshot)];
    for (const { patch } of patches) chain.push(hash(chain.at(-1)! + (patch as string)));
    const seen = this.#sessions.get(sessionId);
    let trusted = -1; // patches validated before (0: only the snapshot), -1: the snapshot is new
    if (seen && seen.snapshot === chain[0]) {
      let at = -1;
      if (seen.through === snapshotVersion) at = 0;
      else {
        const i = patches.findIndex((p) => p.version === seen.through);
        if (i >= 0) at = i + 1;
      }
      if (at >= 0 && chain[at] === seen.chain) trusted = at;
    }
    let state: AgentState;
    if (trusted < 0) {
      state = decodeStoredState(sessionId, snapshot, snapshotVersion, patches);
    } else {
      state = applyStoredPatches(sessionId, snapshot, snapshotVersion, patches, (i, version, patch) => {
        if (i >= trusted) validatePatch(sessionId, version, patch);
      }) as unknown as AgentState;
      if (state.schemaVersion !== AGENT_STATE_VERSION || state.sessionId !== sessionId) {
        // a patch set them: the whole check says what is wrong
        state = decodeStoredState(sessionId, snapshot, snapshotVersion, patches);
      }
    }
    this.#remember(sessionId, {
      snapshot: chain[0]!,
      through: patches.at(-1)?.version ?? snapshotVersion,
      chain: chain.at(-1)!,
    });
    return state;
  }

  #remember(sessionId: string, validated: Validated): void {
    this.#sessions.delete(sessionId);
    this.#sessions.set(sessionId, validated);
    if (this.#sessions.size > REMEMBERED_SESSIONS) this.#sessions.delete(this.#sessions.keys().next().value!);
  }
}

/** The messages and fields a patch brings, each checked by its own schema. */
function validatePatch(sessionId: string, version: number, patch: Record<string, unknown>): void {
  const what = `stored AgentState of session ${JSON.stringify(sessionId)}`;
  const at = (path: string, error: unknown): never => {
    if (error instanceof ValidationError) {
      throw new ValidationError(
        what,
        `patch ${version}.${path}${!error.path ? "" : error.path.startsWith("[") ? error.path : `.${error.path}`}`,
        error.detail,
      );
    }
    throw error;
  };
  (patch.messages as unknown[]).forEach((msg, i) => {
    try {
      parseWith(MsgSchema, msg, "Msg");
    } catch (error) {
      at(`messages[${i}]`, error);
    }
  });
  for (const [key, value] of Object.entries((patch.set ?? {}) as Record<string, unknown>)) {
    const schema = FIELD_SCHEMAS[key];
    if (!schema) continue;
    try {
      parseWith(schema, value, key);
    } catch (error) {
      at(`set.${key}`, error);
    }
  }
}
