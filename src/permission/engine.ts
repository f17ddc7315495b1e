import { boundaryDenial } from "./boundary.js";
import { pathsOfCall } from "./implied-paths.js";
import { pathPermission, pathsAreSafe } from "./paths.js";
import { planModeDecision } from "./plan-mode.js";
import { formatRule, ruleNamesTool } from "./rule.js";
import type {
  PermissionContext,
  PermissionDecision,
  PermissionMode,
  PermissionRule,
  PermissionSubject,
  RuleBehavior,
  ToolPermissionResult,
} from "./types.js";

/**
 * Decides one tool call. Order: the session's boundary (every mode) → deny rules → ask rules →
 * read-only fast path → the tool's own check (with the engine's path check) → allow rules → the
 * mode's fallback. explore stops after the fast path (deny), plan too (the plan proposal asks);
 * bypass never asks; dont_ask turns
 * every ask into a deny. A safety ask is immune to allow rules. Never throws for a tool's own
 * failure: a failing check becomes an ask.
 */
export async function decidePermission(
  subject: PermissionSubject,
  input: unknown,
  context: PermissionContext,
): Promise<PermissionDecision> {
  const { mode } = context;
  const outside = boundaryDenial(subject, input, context);
  if (outside) return outside;
  const denyRule = findRule(subject, input, context, "deny");
  if (denyRule)
    return { behavior: "deny", reason: `denied by the rule ${formatRule(denyRule)}`, rule: denyRule };

  if (mode !== "bypass") {
    const askRule = findRule(subject, input, context, "ask");
    if (askRule) {
      const ask: PermissionDecision = {
        behavior: "ask",
        reason: `the rule ${formatRule(askRule)} asks before ${subject.name} runs`,
        rule: askRule,
        suggestedRules: suggestions(subject, input),
      };
      return mode === "dont_ask" ? askToDeny(ask) : ask;
    }
  }

  if (isReadOnlyCall(subject, input, context)) {
    return { behavior: "allow", reason: `${subject.name} only reads, inside the working directories` };
  }

  if (mode === "explore") {
    return {
      behavior: "deny",
      reason: `explore mode is read-only and ${subject.name} would change something`,
    };
  }
  if (mode === "plan") return planModeDecision(subject);

  const own = await ownCheck(subject, input, context);
  let pendingAsk: PermissionDecision | undefined;
  if (own.behavior === "allow" || own.behavior === "deny") return own;
  if (own.behavior === "ask") {
    if (own.safety) {
      if (mode === "dont_ask") return askToDeny({ ...own, suggestedRules: undefined });
      if (mode !== "bypass") return withoutEmpty({ ...own, suggestedRules: undefined });
    } else {
      pendingAsk = own;
    }
  }

  const allowRule = findRule(subject, input, context, "allow");
  if (allowRule) {
    return { behavior: "allow", reason: `allowed by the rule ${formatRule(allowRule)}`, rule: allowRule };
  }
  return fallback(subject, input, mode, pendingAsk, own.suggestedRules);
}

function fallback(
  subject: PermissionSubject,
  input: unknown,
  mode: PermissionMode,
  pendingAsk: PermissionDecision | undefined,
  ownSuggestions: string[] | undefined,
): PermissionDecision {
  if (mode === "bypass") return { behavior: "allow", reason: "bypass mode allows every call no rule denies" };
  const ask: PermissionDecision = withoutEmpty({
    behavior: "ask",
    reason: pendingAsk?.reason ?? `${mode} mode asks before ${subject.name} runs`,
    suggestedRules: unique([...(ownSuggestions ?? []), ...suggestions(subject, input)]),
  });
  return mode === "dont_ask" ? askToDeny(ask) : ask;
}

function askToDeny(ask: PermissionDecision): PermissionDecision {
  return withoutEmpty({
    behavior: "deny",
    reason: `dont_ask mode denies what would ask: ${ask.reason}`,
    rule: ask.rule,
    suggestedRules: ask.suggestedRules,
    safety: ask.safety,
  });
}

function isReadOnlyCall(subject: PermissionSubject, input: unknown, context: PermissionContext): boolean {
  const readOnly = safely(() => (subject.isReadOnly ? subject.isReadOnly(input) : subject.readOnly), false);
  if (!readOnly) return false;
  const paths = safely(() => pathsOfCall(subject, input, context), undefined);
  return paths !== undefined && pathsAreSafe(paths, context);
}

/** The tool's own verdict merged with the engine's path check; the stricter wins. */
async function ownCheck(
  subject: PermissionSubject,
  input: unknown,
  context: PermissionContext,
): Promise<PermissionDecision | { behavior: "passthrough"; suggestedRules?: string[] }> {
  let own: ToolPermissionResult;
  try {
    own = (await subject.checkPermissions?.(input, context)) ?? { behavior: "passthrough" };
  } catch (error) {
    own = { behavior: "ask", reason: `${subject.name}'s permission check failed: ${describe(error)}` };
  }
  const paths = safely(() => pathsOfCall(subject, input, context), undefined);
  const byPath: ToolPermissionResult = paths
    ? pathPermission(paths, context, { editsFiles: subject.editsFiles === true })
    : { behavior: "passthrough" };
  return severity(byPath) > severity(own) ? { ...byPath, suggestedRules: own.suggestedRules } : own;
}

function severity(result: ToolPermissionResult): number {
  if (result.behavior === "deny") return 5;
  if (result.behavior === "ask" && result.safety) return 4;
  if (result.behavior === "allow") return 3;
  if (result.behavior === "ask") return 2;
  return 1;
}

function findRule(
  subject: PermissionSubject,
  input: unknown,
  context: PermissionContext,
  behavior: RuleBehavior,
): PermissionRule | undefined {
  return context.rules.find((rule) => {
    if (rule.behavior !== behavior || !ruleNamesTool(rule.toolName, subject.name)) return false;
    if (!rule.ruleContent) return true;
    const content = rule.ruleContent;
    return safely(() => subject.matchRule?.(content, input, { behavior, context }) ?? false, false);
  });
}

/** The tool's own "always allow" suggestions; a tool without any offers its whole name. */
function suggestions(subject: PermissionSubject, input: unknown): string[] {
  if (!subject.suggestRules) return [subject.name];
  return safely(() => subject.suggestRules?.(input) ?? [], []);
}

function safely<T>(run: () => T, fallbackValue: T): T {
  try {
    return run();
  } catch {
    return fallbackValue;
  }
}

function unique(values: string[]): string[] {
  return [...new Set(values)];
}

function withoutEmpty(decision: PermissionDecision): PermissionDecision {
  const out: PermissionDecision = { behavior: decision.behavior, reason: decision.reason };
  if (decision.rule) out.rule = decision.rule;
  if (decision.suggestedRules && decision.suggestedRules.length > 0)
    out.suggestedRules = decision.suggestedRules;
  if (decision.safety) out.safety = true;
  return out;
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
