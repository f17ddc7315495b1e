import { ValidationError } from "../message/index.js";
import { type AgentState, parseAgentState } from "./agent-state.js";
import type { SaveOptions } from "./store.js";
import { StateEncodingError } from "./store-errors.js";

/** Session ids are 1 to 255 characters of well-formed text (they become keys, file names, columns). */
export const MAX_SESSION_ID_LENGTH = 255;

/** A high surrogate without a low one, a low one without a high one, or U+0000. */
const LONE_SURROGATE_OR_NUL =
  // biome-ignore lint/suspicious/noControlCharactersInRegex: U+0000 is one of the characters it finds
  /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]|\u0000/g;
/** How JSON.stringify writes the same characters; a cheap first look at a whole serialised state. */
const ESCAPED_UNSTORABLE = /\\u(?:0000|d[89a-f][0-9a-f]{2})/;

/** Replaces lone surrogates and U+0000 with U+FFFD, so the text can be stored anywhere. */
export function replaceUnstorableChars(text: string): string {
  return text.replace(LONE_SURROGATE_OR_NUL, "\uFFFD");
}

function describeUnstorable(text: string): string | undefined {
  LONE_SURROGATE_OR_NUL.lastIndex = 0;
  const match = LONE_SURROGATE_OR_NUL.exec(text);
  if (!match) return undefined;
  const code = match[0].charCodeAt(0).toString(16).toUpperCase().padStart(4, "0");
  return code === "0000"
    ? `U+0000 at index ${match.index}`
    : `a lone surrogate U+${code} at index ${match.index}`;
}

function findUnstorable(value: unknown, path: string): { path: string; problem: string } | undefined {
  if (typeof value === "string") {
    const problem = describeUnstorable(value);
    return problem ? { path, problem } : undefined;
  }
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const found = findUnstorable(value[i], `${path}[${i}]`);
      if (found) return found;
    }
    return undefined;
  }
  if (value && typeof value === "object") {
    for (const [key, child] of Object.entries(value)) {
      const keyProblem = describeUnstorable(key);
      if (keyProblem) return { path: `${path}${path ? "." : ""}(key)`, problem: keyProblem };
      const found = findUnstorable(child, path ? `${path}.${key}` : key);
      if (found) return found;
    }
  }
  return undefined;
}

export function assertSessionId(sessionId: string): void {
  if (typeof sessionId !== "string" || sessionId.length === 0 || sessionId.length > MAX_SESSION_ID_LENGTH) {
    throw new TypeError(`a session id must be a string of 1 to ${MAX_SESSION_ID_LENGTH} characters`);
  }
  const problem = describeUnstorable(sessionId);
  if (problem) throw new TypeError(`session id ${JSON.stringify(sessionId)} contains ${problem}`);
}

/**
 * Checks the arguments of `save` and serialises the state to JSON. Throws on a bad session id, a bad
 * expectedVersion, a state of another session, or text no store can keep (StateEncodingError).
 */
export function encodeState(sessionId: string, state: AgentState, options: SaveOptions): string {
  checkSaveArguments(sessionId, state, options);
  return checkStorable(sessionId, JSON.stringify(state), state);
}

/** The checks of `save`'s arguments: a bad session id, expectedVersion or a state of another session. */
export function checkSaveArguments(sessionId: string, state: AgentState, options: SaveOptions): void {
  assertSessionId(sessionId);
  const expected = options?.expectedVersion;
  if (!Number.isSafeInteger(expected) || expected < 0) {
    throw new TypeError(
      `save(${JSON.stringify(sessionId)}): expectedVersion must be an integer >= 0 (0 = new session), got ${String(expected)}`,
    );
  }
  if (state?.sessionId !== sessionId) {
    throw new TypeError(
      `save(${JSON.stringify(sessionId)}): the state belongs to session ${JSON.stringify(state?.sessionId)}`,
    );
  }
}

/**
 * `json` (the serialised state, or a part of it) when every store can keep its text; else the
 * StateEncodingError naming the field of `state` that holds the bad text.
 */
export function checkStorable(sessionId: string, json: string, state: AgentState): string {
  if (ESCAPED_UNSTORABLE.test(json)) {
    const found = findUnstorable(state, "");
    if (found) throw new StateEncodingError(sessionId, found.path, found.problem);
  }
  return json;
}

/**
 * Validates a stored state (JSON text or parsed) with parseAgentState. A corrupt state throws a
 * ValidationError naming the session and the bad field.
 */
export function decodeState(sessionId: string, stored: unknown): AgentState {
  const what = `stored AgentState of session ${JSON.stringify(sessionId)}`;
  let state: AgentState;
  try {
    state = parseAgentState(stored);
  } catch (error) {
    if (error instanceof ValidationError) throw new ValidationError(what, error.path, error.detail);
    throw error;
  }
  if (state.sessionId !== sessionId) {
    throw new ValidationError(
      what,
      "sessionId",
      `holds the state of session ${JSON.stringify(state.sessionId)}`,
    );
  }
  return state;
}
