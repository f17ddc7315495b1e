/**
 * Guardrails look at what flows through a reply (the user's message, the final answer, a tool call's
 * input, a tool's result) and pass it, rewrite it (e.g. redact) or trip. Given to an Agent as
 * `guardrails`; none given, the reply runs exactly as without them (the stages are chosen once).
 */

import type { ChatFinal, ChatModel } from "../model/core.js";

/** Where a guardrail looks. */
export type GuardrailStage = "input" | "output" | "tool_input" | "tool_result";

/** What a guardrail is asked about. */
export interface GuardrailCheck {
  stage: GuardrailStage;
  /** The text: the user's message, the answer, the call's arguments as JSON, or the result's text. */
  text: string;
  /** The tool, at the tool stages. */
  toolName?: string;
  sessionId: string;
  replyId: string;
  /** Aborted when the reply is interrupted (or an input guardrail tripped while others still run). */
  signal: AbortSignal;
  /**
   * Report a model call the guardrail made (a judge, a moderation model) with its final chunk: it
   * counts in the reply's usage and cost (a MODEL_CALL_END with `metadata.purpose: "guardrail"`) and
   * in spend budgets. A guardrail that calls a model must report each call.
   */
  reportModelCall?: (model: ChatModel, final: ChatFinal) => void;
}

/** A span of the text a guardrail found (what kind of thing, where). */
export interface GuardrailFinding {
  kind: string;
  start: number;
  end: number;
}

/**
 * A guardrail's answer. `rewrite` replaces the text (later guardrails see the new text); `trip`
 * stops it, with a `kind` a program can switch on (`pii`, `secret`, `prompt_injection`, ...) and a
 * reason a person can read.
 */
export type GuardrailVerdict =
  | { action: "pass" }
  | { action: "rewrite"; text: string; findings?: GuardrailFinding[] }
  | { action: "trip"; kind: string; reason: string; findings?: GuardrailFinding[] };

/** One guardrail. `check` may be async (a judge model); it must not throw for content it dislikes: trip instead. */
export interface Guardrail {
  readonly name: string;
  check(input: GuardrailCheck): GuardrailVerdict | Promise<GuardrailVerdict>;
  /**
   * Input stage only: run while the first model call streams (its chunks are held until every
   * parallel guardrail has passed; a trip drops them and ends the reply). Such a guardrail may only
   * pass or trip: a rewrite from it is a trip, since the model already has the text.
   */
  readonly parallel?: boolean;
  /**
   * Output stage only: run on the answer's text as it streams, before its deltas go out, over a
   * window of at most `GuardrailOptions.lookAhead` held-back characters plus each new delta. Such a
   * guardrail may rewrite (redact): the window is rewritten before it goes out. It sees held text
   * again with the next delta, so its rewrite must leave its own output as it is (a redaction does).
   */
  readonly streamed?: boolean;
}

/** The typed reason of a trip: REQUEST_STOP's `metadata.guardrailTrip`, and the replaced result's text. */
export interface GuardrailTrip {
  guardrail: string;
  stage: GuardrailStage;
  kind: string;
  reason: string;
  toolName?: string;
}

export interface GuardrailOptions {
  /** On the user's message(s) of a new reply, before the first model call. */
  input?: Guardrail[];
  /**
   * On the final answer's text (pass or trip: the answer has streamed; a rewrite is a trip). Those
   * marked `streamed` run on the text as it streams instead, and may rewrite it.
   */
  output?: Guardrail[];
  /**
   * Streamed output guardrails: how many characters of a text block are held back at most (default
   * 64), so a value up to this long that arrives split across deltas is checked whole before any of
   * it goes out. Longer values may go out in part.
   */
  lookAhead?: number;
  /** On a call's arguments (JSON), before the permission engine: pass or trip (a trip denies the call). */
  toolInput?: Guardrail[];
  /** On a tool's result text before the model, the events or the logs see it: pass, rewrite or trip. */
  toolResult?: Guardrail[];
  /**
   * A trip at a tool stage: `replace` (default) puts the guardrail's reason in place of the call's
   * input decision or result and the reply goes on; `stop` also ends the reply (REQUEST_STOP).
   */
  onToolTrip?: "replace" | "stop";
}

/**
 * The verdict of a list of guardrails, in order: the text (rewritten or not), or the first trip. A
 * guardrail that throws trips (kind `guardrail_error`).
 */
export async function runGuardrails(
  guardrails: readonly Guardrail[],
  check: GuardrailCheck,
): Promise<{ text: string; rewritten: boolean } | { trip: GuardrailTrip }> {
  let text = check.text;
  let rewritten = false;
  for (const guardrail of guardrails) {
    let verdict: GuardrailVerdict;
    try {
      verdict = await guardrail.check({ ...check, text });
    } catch (error) {
      // A guardrail that fails cannot vouch for the text: that is a trip, never a pass.
      const message = error instanceof Error ? error.message : String(error);
      return { trip: tripOf(guardrail, check, "guardrail_error", `the guardrail failed: ${message}`) };
    }
    if (verdict.action === "trip") return { trip: tripOf(guardrail, check, verdict.kind, verdict.reason) };
    if (verdict.action === "rewrite") {
      text = verdict.text;
      rewritten = true;
    }
  }
  return { text, rewritten };
}

export function tripOf(
  guardrail: Guardrail,
  check: GuardrailCheck,
  kind: string,
  reason: string,
): GuardrailTrip {
  const trip: GuardrailTrip = { guardrail: guardrail.name, stage: check.stage, kind, reason };
  if (check.toolName !== undefined) trip.toolName = check.toolName;
  return trip;
}

/** A trip in words: what a replaced result or a denied call says. */
export function tripText(trip: GuardrailTrip): string {
  return `blocked by guardrail "${trip.guardrail}" (${trip.kind}): ${trip.reason}`;
}
