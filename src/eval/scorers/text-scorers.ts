import { show } from "../divergence.js";
import type { Scorer, ScorerOptions } from "./scorer.js";

export interface TextContainsOptions extends ScorerOptions {
  ignoreCase?: boolean;
}

/** Passes when the final answer contains every one of the given strings; scores the share found. */
export function textContains(
  expected: string | readonly string[],
  options: TextContainsOptions = {},
): Scorer {
  const { ignoreCase, ...rest } = options;
  const wanted = typeof expected === "string" ? [expected] : [...expected];
  const fold = (text: string) => (ignoreCase ? text.toLowerCase() : text);
  return {
    name: `text_contains:${wanted.join("|")}`,
    ...rest,
    score({ run }) {
      const text = fold(run.trajectory.finalText);
      const missing = wanted.filter((part) => !text.includes(fold(part)));
      return {
        value: wanted.length === 0 ? 1 : (wanted.length - missing.length) / wanted.length,
        reason:
          missing.length === 0
            ? "the answer contains every expected text"
            : `the answer lacks ${missing.map(show).join(", ")}: ${show(run.trajectory.finalText)}`,
      };
    },
  };
}

/** Passes when the final answer matches the regular expression. */
export function textMatches(
  pattern: RegExp | string,
  options: ScorerOptions & { flags?: string } = {},
): Scorer {
  const { flags, ...rest } = options;
  const regex = typeof pattern === "string" ? new RegExp(pattern, flags) : pattern;
  return {
    name: `text_matches:${regex.source}`,
    ...rest,
    score({ run }) {
      regex.lastIndex = 0;
      return regex.test(run.trajectory.finalText)
        ? { value: 1, reason: `the answer matches /${regex.source}/` }
        : {
            value: 0,
            reason: `the answer does not match /${regex.source}/: ${show(run.trajectory.finalText)}`,
          };
    },
  };
}
