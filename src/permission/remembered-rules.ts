import { formatRule, parseRule } from "./rule.js";
import type { PermissionDecision } from "./types.js";

/**
 * Why an "always allow" answer may not remember `rules`, or undefined when it may: each rule must be
 * one the ask it answers suggested (compared in normalised string form). A safety ask, or an ask
 * with nothing to suggest, offers no rule, so an answer to it remembers none: it is never turned
 * into a blanket rule for the whole tool. Throws a PermissionRuleError for a rule that cannot be read.
 */
export function unofferedRules(
  rules: readonly string[],
  ask: PermissionDecision | undefined,
): string | undefined {
  if (rules.length === 0) return undefined;
  const offered = new Set((ask?.behavior === "ask" ? (ask.suggestedRules ?? []) : []).map(normalise));
  const extra = rules.filter((rule) => !offered.has(normalise(rule)));
  if (extra.length === 0) return undefined;
  const list = extra.map((rule) => JSON.stringify(rule)).join(", ");
  if (ask?.behavior === "ask" && ask.safety) {
    return `it asks to remember ${list}, but a safety ask offers no rule to remember (confirm it once instead)`;
  }
  if (offered.size === 0)
    return `it asks to remember ${list}, but the confirmation offered no rule to remember`;
  return `it asks to remember ${list}, which the confirmation did not offer (offered: ${[...offered].join(", ")})`;
}

function normalise(rule: string): string {
  return formatRule(parseRule(rule, "allow", "confirmation"));
}
