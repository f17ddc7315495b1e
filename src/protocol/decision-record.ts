/**
 * What a permission outcome was. `ask`: the engine paused the call for a person; `approve`: a person
 * let it run as asked; `edit`: a person let it run with other arguments (see `approvedInput`, `diff`);
 * `always_allow`: a person let it run and remembered `rules`; `deny`: a person refused it, or a rule,
 * mode, boundary or the tool's own check refused it (`actor` says which); `allow`: a rule allowed it
 * without asking; `external_result`: the caller that runs an external tool sent its result;
 * `expire`: nobody answered before the pause's deadline; `policy_refusal`: an answer the approver
 * policy does not take (someone it does not name, an edit under a quorum, a second vote of one
 * person); `vote`: an approver's approval that counts toward a quorum not yet met (the call waits);
 * `outcome_unknown`: the process running the call stopped while it ran, so whether it took effect is
 * unknown (`resolution` says whether it is asked about again or run again with the same key);
 * `changed`: the call's tool (or the agent's rules, mode or model) changed while the call was paused,
 * so its answer is not taken and it is asked again (`changes` says what changed).
 */
export type DecisionOutcome =
  | "ask"
  | "approve"
  | "edit"
  | "always_allow"
  | "deny"
  | "allow"
  | "external_result"
  | "expire"
  | "policy_refusal"
  | "vote"
  | "outcome_unknown"
  | "changed";

/**
 * Through what an answer came. `engine`: no person answered (a rule, a mode, a deadline); `code`: a
 * program called the agent directly; the rest are the service's surfaces.
 */
export type DecisionChannel =
  | "engine"
  | "code"
  | "rest"
  | "console"
  | "cli"
  | "agui"
  | "a2a"
  | "mcp"
  | "openai";

/** The channels a person's answer can come through (every channel but `engine`). */
export const ANSWER_CHANNELS: readonly DecisionChannel[] = [
  "code",
  "rest",
  "console",
  "cli",
  "agui",
  "a2a",
  "mcp",
  "openai",
];

/** Who answered a paused reply: the name the service authenticated (or the caller gave), and how. */
export interface Answerer {
  name: string;
  channel: DecisionChannel;
  /** The answerer's roles, for approver policies (the service's come from its token configuration). */
  roles?: string[];
}

/** One change an edit made to a call's arguments: a JSON Pointer (`/path/0`), and the value before and after (absent: none). */
export interface InputChange {
  path: string;
  before?: unknown;
  after?: unknown;
}

/**
 * The record of one permission outcome for one tool call, as the DECISION event carries it and the
 * reply's Msg keeps it (`metadata.decisions`). Immutable: a later outcome for the same call is a new
 * record, never an edit of this one.
 */
export interface DecisionRecord {
  /** The event id of the record. */
  id: string;
  /** When it was decided (ISO 8601). */
  createdAt: string;
  replyId: string;
  /** The sub-agent whose call it was (`main/researcher`); absent for the top-level agent. */
  source?: string;
  toolCallId: string;
  toolName: string;
  outcome: DecisionOutcome;
  /** The call's arguments (JSON text) the outcome is about: what was asked, or what the engine decided. */
  input: string;
  /** `edit`: the arguments the person approved instead. */
  approvedInput?: string;
  /** `edit`: what changed from `input` to `approvedInput`. */
  diff?: InputChange[];
  /** The permission mode of the session when it was decided. */
  mode: string;
  /** The rule (string form, e.g. `Bash(git status:*)`) that decided, when one did. */
  rule?: string;
  /** Who decided: the person's or caller's name; `engine` when no person did. */
  actor: string;
  channel: DecisionChannel;
  /** Why, as the engine said it or the person gave it. */
  reason?: string;
  /** `always_allow` (or an `edit` that also remembers): the rules remembered from now on. */
  rules?: string[];
  /** The approver policy that governed this answer, when one did. */
  policy?: string;
  /** The approval that met a quorum: every approver counted, in the order they approved. */
  approvers?: string[];
  /** `ask`: when it expires unanswered (ISO 8601), when an approver policy sets a deadline. */
  expiresAt?: string;
  /**
   * The engine's verdict in a reply that had read untrusted content (taint tracking on): what it read,
   * one source each (`a web page (web_fetch)`). Absent when the reply was not tainted.
   */
  taint?: string[];
  /** `outcome_unknown`: `ask` (a person decides whether it runs again) or `retry` (an idempotent tool runs again). */
  resolution?: "ask" | "retry";
  /** `outcome_unknown`: the call that runs the effect again (a new call id, the same effect id). */
  retryCallId?: string;
  /** `changed`: what changed since the call paused, one line each ("the input schema of deploy changed"). */
  changes?: string[];
}

/** `GET /v1/sessions/:id/decisions`: every decision record the session's log holds, oldest first. */
export interface DecisionList {
  decisions: DecisionRecord[];
}
