import { isDeepStrictEqual } from "node:util";
import type { NormalMsg, RecordedRequest, RecordedToolCall, RecordedTurn } from "./case.js";

export type DivergenceKind =
  | "tools"
  | "system"
  | "messages"
  | "tool_call"
  | "decision"
  | "confirmation"
  | "result"
  | "turn_count";

/** The first point where a run left its recording, and what differs there. */
export interface Divergence {
  /** The model call (1-based) where it happened. */
  turn: number;
  kind: DivergenceKind;
  /** Where in the turn, e.g. `request.messages[2].toolResults[0].output`. */
  path: string;
  expected: unknown;
  actual: unknown;
  /** One sentence a person reads in a test failure or a report. */
  message: string;
}

const MAX_SHOWN = 160;

/** A value shown in a message: JSON, shortened. */
export function show(value: unknown): string {
  const text = typeof value === "string" ? JSON.stringify(value) : (JSON.stringify(value) ?? "undefined");
  return text.length > MAX_SHOWN ? `${text.slice(0, MAX_SHOWN - 1)}…` : text;
}

const callText = (call: RecordedToolCall | undefined) =>
  call ? `${call.name}(${show(call.input)})` : "no call";

type Found = Omit<Divergence, "turn" | "message"> & { message: string };

function setDifference(expected: string[], actual: string[]): string {
  const missing = expected.filter((name) => !actual.includes(name));
  const extra = actual.filter((name) => !expected.includes(name));
  const parts: string[] = [];
  if (missing.length) parts.push(`missing ${missing.join(", ")}`);
  if (extra.length) parts.push(`new ${extra.join(", ")}`);
  return parts.length
    ? parts.join("; ")
    : `same tools, order ${actual.join(", ")} instead of ${expected.join(", ")}`;
}

const MSG_FIELDS = ["role", "text", "toolCalls", "toolResults", "data"] as const;

function messageDivergence(expected: NormalMsg[], actual: NormalMsg[]): Found | undefined {
  const length = Math.max(expected.length, actual.length);
  for (let i = 0; i < length; i += 1) {
    const want = expected[i];
    const got = actual[i];
    if (isDeepStrictEqual(want, got)) continue;
    const path = `request.messages[${i}]`;
    if (!want || !got) {
      return {
        kind: "messages",
        path,
        expected: want,
        actual: got,
        message: want
          ? `the agent sent ${actual.length} messages; the recording has ${expected.length} (message ${i}, ${want.role}, is missing)`
          : `the agent sent an extra message ${i} (${got!.role}): ${show(got)}`,
      };
    }
    for (const field of MSG_FIELDS) {
      if (isDeepStrictEqual(want[field], got[field])) continue;
      const list = field === "toolCalls" || field === "toolResults";
      const items = list ? Math.max((want[field] ?? []).length, (got[field] ?? []).length) : 0;
      for (let j = 0; j < items; j += 1) {
        const a = (want[field] as unknown[] | undefined)?.[j];
        const b = (got[field] as unknown[] | undefined)?.[j];
        if (!isDeepStrictEqual(a, b)) {
          return {
            kind: "messages",
            path: `${path}.${field}[${j}]`,
            expected: a,
            actual: b,
            message: `message ${i} (${want.role}) ${field}[${j}] differs: expected ${show(a)}, got ${show(b)}`,
          };
        }
      }
      return {
        kind: "messages",
        path: `${path}.${field}`,
        expected: want[field],
        actual: got[field],
        message: `message ${i} (${want.role}) ${field} differs: expected ${show(want[field])}, got ${show(got[field])}`,
      };
    }
  }
  return undefined;
}

/** Parts of the request a comparison may leave out (e.g. the system prompt when testing a new one). */
export type RequestPart = "system" | "tools" | "messages";

function requestDivergence(
  expected: RecordedRequest | undefined,
  actual: RecordedRequest | undefined,
  ignore: ReadonlySet<RequestPart>,
): Found | undefined {
  if (!expected || !actual) return undefined;
  if (
    !ignore.has("tools") &&
    expected.tools &&
    actual.tools &&
    !isDeepStrictEqual(expected.tools, actual.tools)
  ) {
    return {
      kind: "tools",
      path: "request.tools",
      expected: expected.tools,
      actual: actual.tools,
      message: `the tools offered differ: ${setDifference(expected.tools, actual.tools)}`,
    };
  }
  if (
    !ignore.has("system") &&
    expected.system !== undefined &&
    actual.system !== undefined &&
    expected.system !== actual.system
  ) {
    return {
      kind: "system",
      path: "request.system",
      expected: expected.system,
      actual: actual.system,
      message: `the system prompt differs: expected ${show(expected.system)}, got ${show(actual.system)}`,
    };
  }
  if (!ignore.has("messages") && expected.messages && actual.messages)
    return messageDivergence(expected.messages, actual.messages);
  return undefined;
}

function callDivergence(i: number, want: RecordedToolCall, got: RecordedToolCall): Found | undefined {
  const path = `toolCalls[${i}]`;
  if (want.name !== got.name || !isDeepStrictEqual(want.input, got.input)) {
    return {
      kind: "tool_call",
      path,
      expected: { name: want.name, input: want.input },
      actual: { name: got.name, input: got.input },
      message: `the agent called ${callText(got)}; the recording called ${callText(want)}`,
    };
  }
  if (want.decision !== undefined && want.decision !== got.decision) {
    return {
      kind: "decision",
      path: `${path}.decision`,
      expected: want.decision,
      actual: got.decision,
      message: `the permission decision for ${callText(got)} was ${got.decision ?? "none"}; the recording has ${want.decision}`,
    };
  }
  if (want.confirmed !== undefined && got.confirmed !== undefined && want.confirmed !== got.confirmed) {
    return {
      kind: "confirmation",
      path: `${path}.confirmed`,
      expected: want.confirmed,
      actual: got.confirmed,
      message: `the answer to ${callText(got)} was ${got.confirmed ? "approve" : "deny"}; the recording has ${want.confirmed ? "approve" : "deny"}`,
    };
  }
  if (want.result !== undefined && !isDeepStrictEqual(want.result, got.result)) {
    return {
      kind: "result",
      path: `${path}.result`,
      expected: want.result,
      actual: got.result,
      message: `the result of ${callText(got)} differs: expected ${show(want.result)}, got ${show(got.result)}`,
    };
  }
  return undefined;
}

function turnDivergence(
  want: RecordedTurn,
  got: RecordedTurn,
  ignore: ReadonlySet<RequestPart>,
): Found | undefined {
  const request = requestDivergence(want.request, got.request, ignore);
  if (request) return request;
  const expected = want.toolCalls ?? [];
  const actual = got.toolCalls ?? [];
  for (let i = 0; i < Math.max(expected.length, actual.length); i += 1) {
    const a = expected[i];
    const b = actual[i];
    if (!a || !b) {
      return {
        kind: "tool_call",
        path: `toolCalls[${i}]`,
        expected: a && { name: a.name, input: a.input },
        actual: b && { name: b.name, input: b.input },
        message: a
          ? `the agent did not call ${callText(a)} (it made ${actual.length} call(s); the recording ${expected.length})`
          : `the agent also called ${callText(b)}, which the recording does not have`,
      };
    }
    const found = callDivergence(i, a, b);
    if (found) return found;
  }
  return undefined;
}

/**
 * Compares a run's turns with its recording, turn by turn: in each, the request the agent built
 * (tools offered, system prompt, messages — each only where the recording has it), then the tool
 * calls it made, their permission decisions, the answers and their results. Returns the first
 * difference, or undefined when the run follows the recording to its end. `ignore` leaves parts of
 * the request out (a live run of a new prompt: ignore "system" to see what the agent does differently).
 */
export function firstDivergence(
  recorded: readonly RecordedTurn[],
  actual: readonly RecordedTurn[],
  ignore: readonly RequestPart[] = [],
): Divergence | undefined {
  const skip = new Set(ignore);
  for (let i = 0; i < Math.max(recorded.length, actual.length); i += 1) {
    const want = recorded[i];
    const got = actual[i];
    const turn = i + 1;
    if (!want) {
      return {
        turn,
        kind: "turn_count",
        path: "turns",
        expected: recorded.length,
        actual: actual.length,
        message: `turn ${turn}: the agent made model call ${turn}; the recording ends after ${recorded.length}`,
      };
    }
    if (!got) {
      return {
        turn,
        kind: "turn_count",
        path: "turns",
        expected: recorded.length,
        actual: actual.length,
        message: `turn ${turn}: the agent stopped after ${actual.length} model call(s); the recording has ${recorded.length}`,
      };
    }
    const found = turnDivergence(want, got, skip);
    if (found) return { turn, ...found, message: `turn ${turn}: ${found.message}` };
  }
  return undefined;
}
