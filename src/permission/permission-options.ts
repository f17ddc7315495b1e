import { PermissionRuleError, parseRule } from "./rule.js";
import type { PermissionContext, PermissionMode, PermissionRule, RuleBehavior, RuleSource } from "./types.js";

/**
 * A rule as a caller may write it: the string form (`"Bash(git status:*)"`, an allow rule unless
 * prefixed `"deny:"`, `"ask:"` or `"allow:"`), or an object. Both are checked and turned into a
 * plain `PermissionRule` once, at the boundary.
 */
export type PermissionRuleInput =
  | string
  | { toolName: string; ruleContent?: string; behavior?: RuleBehavior; source?: RuleSource }
  | { rule: string; behavior?: RuleBehavior; source?: RuleSource };

/** Permission settings as `new Agent({ permission })` and the service config accept them. */
export interface PermissionOptions {
  mode?: PermissionMode;
  rules?: readonly PermissionRuleInput[];
  /** Shorthands: rules in string form per behavior. */
  allow?: readonly string[];
  ask?: readonly string[];
  deny?: readonly string[];
  workingDirectories?: readonly string[];
}

const MODES: readonly PermissionMode[] = ["default", "accept_edits", "explore", "bypass", "dont_ask", "plan"];
const BEHAVIORS: readonly RuleBehavior[] = ["allow", "deny", "ask"];
const SOURCES: readonly RuleSource[] = ["user", "project", "session", "config", "cli", "confirmation"];
const PREFIX = /^(allow|deny|ask)\s*:\s*/;

/**
 * Checks permission options and returns the plain, serialisable context they describe (what goes
 * into the agent state). Throws a `PermissionRuleError` naming the rule and where it was for a bad
 * rule, and an Error naming the field for anything else.
 */
export function permissionContextFrom(
  options: PermissionOptions | undefined,
  source: RuleSource = "user",
): Partial<PermissionContext> {
  if (options === undefined) return {};
  if (typeof options !== "object" || options === null) throw new Error("permission must be an object");
  const out: Partial<PermissionContext> = {};
  if (options.mode !== undefined) {
    if (!MODES.includes(options.mode)) {
      throw new Error(`permission.mode ${JSON.stringify(options.mode)} is not one of ${MODES.join(", ")}`);
    }
    out.mode = options.mode;
  }
  if (options.workingDirectories !== undefined) {
    const dirs = options.workingDirectories;
    if (!Array.isArray(dirs) || dirs.some((dir) => typeof dir !== "string" || dir === "")) {
      throw new Error("permission.workingDirectories must be a list of non-empty paths");
    }
    out.workingDirectories = [...dirs];
  }
  const rules: PermissionRule[] = [];
  for (const [index, input] of (options.rules ?? []).entries()) {
    rules.push(ruleFromInput(input, source, `permission.rules[${index}]`));
  }
  for (const behavior of BEHAVIORS) {
    for (const [index, text] of (options[behavior] ?? []).entries()) {
      if (typeof text !== "string") throw new Error(`permission.${behavior}[${index}] must be a rule string`);
      rules.push(ruleFromInput({ rule: text, behavior, source }, source, `permission.${behavior}[${index}]`));
    }
  }
  if (options.rules !== undefined || BEHAVIORS.some((behavior) => options[behavior] !== undefined))
    out.rules = rules;
  return out;
}

/** One rule input as a checked `PermissionRule`; `where` names it in errors (e.g. `permission.rules[2]`). */
export function ruleFromInput(
  input: PermissionRuleInput,
  source: RuleSource = "user",
  where = "rule",
): PermissionRule {
  try {
    if (typeof input === "string") {
      const prefix = PREFIX.exec(input);
      const behavior = (prefix?.[1] as RuleBehavior | undefined) ?? "allow";
      return parseRule(prefix ? input.slice(prefix[0].length) : input, behavior, source);
    }
    if (typeof input !== "object" || input === null) {
      throw new PermissionRuleError(String(input), "a rule is a string like Bash(git status:*) or an object");
    }
    const behavior = input.behavior ?? "allow";
    if (!BEHAVIORS.includes(behavior)) {
      throw new PermissionRuleError(JSON.stringify(input), `behavior must be one of ${BEHAVIORS.join(", ")}`);
    }
    const ruleSource = input.source ?? source;
    if (!SOURCES.includes(ruleSource)) {
      throw new PermissionRuleError(JSON.stringify(input), `source must be one of ${SOURCES.join(", ")}`);
    }
    if ("rule" in input) return parseRule(String(input.rule), behavior, ruleSource);
    if (typeof input.toolName !== "string") {
      throw new PermissionRuleError(JSON.stringify(input), "toolName must be a string");
    }
    if (input.ruleContent !== undefined && typeof input.ruleContent !== "string") {
      throw new PermissionRuleError(JSON.stringify(input), "ruleContent must be a string");
    }
    const text = input.ruleContent === undefined ? input.toolName : `${input.toolName}(${input.ruleContent})`;
    return parseRule(text, behavior, ruleSource);
  } catch (error) {
    if (error instanceof PermissionRuleError) {
      throw new PermissionRuleError(error.rule, error.problem, where);
    }
    throw error;
  }
}
