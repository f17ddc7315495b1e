import { AgentScopeError } from "../message/index.js";

/** A compare-and-set save lost: someone else saved (or deleted) the session since it was loaded. */
export class StateConflictError extends AgentScopeError {
  readonly sessionId: string;
  readonly expectedVersion: number;
  /** The version found in the store; 0 = the session does not exist. */
  readonly actualVersion: number;

  constructor(sessionId: string, expectedVersion: number, actualVersion: number) {
    const expected = expectedVersion === 0 ? "no saved state" : `version ${expectedVersion}`;
    const actual = actualVersion === 0 ? "no saved state" : `version ${actualVersion}`;
    super({
      type: "conflict",
      source: "state",
      message:
        expectedVersion === actualVersion && actualVersion > 0
          ? `cannot save session "${sessionId}": the store has version ${actualVersion}, but not the one this state was saved or loaded as (the session was deleted and saved again meanwhile); load it again, reapply the change and retry`
          : `cannot save session "${sessionId}": expected ${expected} but the store has ${actual} (someone else saved it); load it again, reapply the change and retry`,
    });
    this.name = "StateConflictError";
    this.sessionId = sessionId;
    this.expectedVersion = expectedVersion;
    this.actualVersion = actualVersion;
  }
}

/** A state holds text no store can keep (a lone UTF-16 surrogate or U+0000). */
export class StateEncodingError extends AgentScopeError {
  readonly sessionId: string;
  /** The field holding the bad text, e.g. `context[3].content[0].output`. */
  readonly path: string;

  constructor(sessionId: string, path: string, problem: string) {
    super({
      type: "invalid_request",
      source: "state",
      message: `cannot save session "${sessionId}": ${path || "(root)"} contains ${problem}, which stores cannot keep; clean the text first (replaceUnstorableChars swaps such characters for U+FFFD)`,
    });
    this.name = "StateEncodingError";
    this.sessionId = sessionId;
    this.path = path;
  }
}

/** A store's database driver is not installed. */
export class MissingDriverError extends AgentScopeError {
  readonly packageName: string;

  constructor(store: string, packageName: string, options?: { cause?: unknown }) {
    super(
      {
        type: "internal",
        source: "state",
        message: `${store} needs the "${packageName}" package, which is not installed: npm install ${packageName}`,
      },
      options,
    );
    this.name = "MissingDriverError";
    this.packageName = packageName;
  }
}
