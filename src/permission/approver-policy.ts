import { formatRule, parseRule, ruleNamesTool } from "./rule.js";

/**
 * Who may answer the asks of some calls. A policy covers the calls of `tools` (names as rules name
 * them: `Bash`, `mcp__github`, `deploy_*`) and the asks that the rules in `rules` made (string
 * form, compared normalised); with neither, every ask of the agent. An answer counts when its
 * answerer is one of `users` or has one of `roles` (neither: anyone who can reach the session, in
 * the service its owner). `quorum` (default 1) distinct approvers must approve the call as asked
 * before it runs; one refusal from an approver refuses it.
 */
export interface ApproverPolicy {
  /** Named in refusals and on the decision records it governs. */
  name: string;
  tools?: readonly string[];
  rules?: readonly string[];
  users?: readonly string[];
  roles?: readonly string[];
  quorum?: number;
  /**
   * How long an ask it governs waits for an answer: past it the call expires (an `expire` record)
   * when the reply next resumes, and a late answer is not taken. Re-asking the call keeps the first deadline.
   */
  expiresAfterMs?: number;
  /** What an expired ask becomes: `deny` (the default; the model reads why) or `approve` (it runs as asked). */
  onExpiry?: "deny" | "approve";
}

/** The roles of an answerer, by name: what a program supplies when its answers carry none. */
export type RolesOf = (name: string) => readonly string[] | Promise<readonly string[]>;

/** `new Agent({ approvers })`: the policies, first match wins, and where roles come from. */
export interface ApproverOptions {
  policies: readonly ApproverPolicy[];
  /** Roles of an answerer whose answer carries none (the service's answers carry the token's roles). */
  rolesOf?: RolesOf;
  /** The clock deadlines are set and judged by, in ms since the epoch (default `Date.now`). */
  now?: () => number;
}

/** The policy that governs the ask of a `toolName` call that `rule` (string form) made, if any: the first that covers it. */
export function policyFor(
  policies: readonly ApproverPolicy[],
  toolName: string,
  rule: string | undefined,
): ApproverPolicy | undefined {
  return policies.find((policy) => {
    const byTool = policy.tools?.some((name) => ruleNamesTool(name, toolName)) ?? false;
    const byRule =
      rule !== undefined && (policy.rules?.some((text) => normalised(text) === normalised(rule)) ?? false);
    return (policy.tools === undefined && policy.rules === undefined) || byTool || byRule;
  });
}

/** Why `name` (with `roles`) may not answer under `policy`, or undefined when they may. */
export function notAnApprover(
  policy: ApproverPolicy,
  name: string,
  roles: readonly string[],
): string | undefined {
  const { users, roles: wanted } = policy;
  if (users === undefined && wanted === undefined) return undefined;
  if (users?.includes(name) || wanted?.some((role) => roles.includes(role))) return undefined;
  const who = [
    ...(users?.length ? [`users ${users.join(", ")}`] : []),
    ...(wanted?.length ? [`roles ${wanted.join(", ")}`] : []),
  ].join(" or ");
  const theirs = roles.length > 0 ? ` (roles: ${roles.join(", ")})` : " (no roles)";
  return `the approver policy "${policy.name}" lets only ${who} answer; ${name}${theirs} may not`;
}

/**
 * Checks approver options once, at the boundary: each policy named (names unique), lists of
 * non-empty strings, rules that parse, a quorum that is an integer ≥ 1. Throws an Error naming
 * the policy and the field.
 */
export function checkApproverOptions(options: ApproverOptions): ApproverOptions {
  if (typeof options !== "object" || options === null || !Array.isArray(options.policies))
    throw new Error("approvers: expected { policies: [...], rolesOf? }");
  if (options.rolesOf !== undefined && typeof options.rolesOf !== "function")
    throw new Error("approvers.rolesOf: expected a function (name) => roles");
  if (options.now !== undefined && typeof options.now !== "function")
    throw new Error("approvers.now: expected a function () => milliseconds");
  const names = new Set<string>();
  for (const [index, policy] of options.policies.entries()) {
    const where = `approvers.policies[${index}]`;
    if (typeof policy?.name !== "string" || policy.name.trim() === "")
      throw new Error(`${where}.name: every approver policy needs a name`);
    if (names.has(policy.name))
      throw new Error(`${where}.name: two approver policies are named "${policy.name}"`);
    names.add(policy.name);
    for (const key of ["tools", "rules", "users", "roles"] as const) {
      const list = policy[key];
      if (list !== undefined && (!Array.isArray(list) || list.some((v) => typeof v !== "string" || v === "")))
        throw new Error(`${where}.${key}: expected a list of non-empty strings`);
    }
    for (const rule of policy.rules ?? []) normalised(rule, `${where}.rules`);
    const quorum = policy.quorum;
    if (quorum !== undefined && !(Number.isInteger(quorum) && quorum >= 1))
      throw new Error(`${where}.quorum: expected an integer ≥ 1, got ${String(quorum)}`);
    const after = policy.expiresAfterMs;
    if (after !== undefined && !(Number.isInteger(after) && after >= 1))
      throw new Error(
        `${where}.expiresAfterMs: expected an integer ≥ 1 (milliseconds), got ${String(after)}`,
      );
    if (policy.onExpiry !== undefined && policy.onExpiry !== "deny" && policy.onExpiry !== "approve")
      throw new Error(
        `${where}.onExpiry: expected "deny" or "approve", got ${JSON.stringify(policy.onExpiry)}`,
      );
    const people = (policy.users?.length ?? 0) + (policy.roles?.length ?? 0);
    if ((quorum ?? 1) > 1 && people === 0)
      throw new Error(`${where}.quorum: a quorum needs users or roles to count`);
  }
  return options;
}

function normalised(rule: string, where?: string): string {
  try {
    return formatRule(parseRule(rule, "allow", "config"));
  } catch (error) {
    if (where) throw new Error(`${where}: ${(error as Error).message}`);
    return rule;
  }
}
