import { isDeepStrictEqual } from "node:util";
import { show } from "../divergence.js";
import { toolCallsOf } from "../trajectory.js";
import type { Scorer, ScorerOptions } from "./scorer.js";

/** Expected arguments: a partial object (each given key must match, recursively) or a predicate. */
export type ArgsMatcher = Record<string, unknown> | ((input: unknown) => boolean);

/** Whether `actual` has everything `expected` has: objects by key (extra keys allowed), the rest equal. */
export function matchesPartially(actual: unknown, expected: unknown): boolean {
  if (expected !== null && typeof expected === "object" && !Array.isArray(expected)) {
    if (actual === null || typeof actual !== "object" || Array.isArray(actual)) return false;
    return Object.entries(expected).every(([key, value]) =>
      matchesPartially((actual as Record<string, unknown>)[key], value),
    );
  }
  if (Array.isArray(expected)) {
    return (
      Array.isArray(actual) &&
      actual.length === expected.length &&
      expected.every((value, i) => matchesPartially(actual[i], value))
    );
  }
  return isDeepStrictEqual(actual, expected);
}

const argsMatch = (matcher: ArgsMatcher | undefined, input: unknown) =>
  matcher === undefined ||
  (typeof matcher === "function" ? matcher(input) : matchesPartially(input, matcher));

export interface ToolCalledOptions extends ScorerOptions {
  args?: ArgsMatcher;
  /** Exactly this many matching calls (default: at least one). */
  times?: number;
}

/** Passes when the agent called `tool` (with matching arguments, the given number of times). */
export function toolCalled(tool: string, options: ToolCalledOptions = {}): Scorer {
  const { args, times, ...rest } = options;
  return {
    name: `tool_called:${tool}`,
    ...rest,
    score({ run }) {
      const calls = toolCallsOf(run.trajectory).filter((call) => call.name === tool);
      const matching = calls.filter((call) => argsMatch(args, call.input));
      const ok = times === undefined ? matching.length > 0 : matching.length === times;
      if (ok) return { value: 1, reason: `${tool} called ${matching.length} time(s) as expected` };
      const want = `${times === undefined ? "at least once" : `${times} time(s)`}${args && typeof args !== "function" ? ` with ${show(args)}` : ""}`;
      const seen = calls.length ? `; its calls: ${calls.map((c) => show(c.input)).join(", ")}` : "";
      return { value: 0, reason: `expected ${tool} ${want}, found ${matching.length} matching${seen}` };
    },
  };
}

/** Passes when the agent never called `tool`. */
export function toolNotCalled(tool: string, options: ScorerOptions = {}): Scorer {
  return {
    name: `tool_not_called:${tool}`,
    ...options,
    score({ run }) {
      const calls = toolCallsOf(run.trajectory).filter((call) => call.name === tool);
      return calls.length === 0
        ? { value: 1, reason: `${tool} was not called` }
        : {
            value: 0,
            reason: `${tool} was called ${calls.length} time(s): ${calls.map((c) => show(c.input)).join(", ")}`,
          };
    },
  };
}

/** Passes when no tool call was denied (by a rule or by the person answering). */
export function noDeniedCall(options: ScorerOptions = {}): Scorer {
  return {
    name: "no_denied_call",
    ...options,
    score({ run }) {
      const denied = toolCallsOf(run.trajectory).filter((call) => call.result?.state === "denied");
      return denied.length === 0
        ? { value: 1, reason: "no call was denied" }
        : { value: 0, reason: `denied: ${denied.map((c) => `${c.name}(${show(c.input)})`).join(", ")}` };
    },
  };
}
