import { AgentScopeError, type ErrorType } from "../message/index.js";
import type { PermissionContext, PermissionRule, RuleBehavior, RuleSource } from "./types.js";

/** Thrown when a rule string cannot be read; the message quotes the rule and says what is wrong. */
export class PermissionRuleError extends AgentScopeError {
  static override readonly errorType: ErrorType = "invalid_request";
  constructor(
    readonly rule: string,
    readonly problem: string,
    /** Where the rule was written, e.g. `permission.rules[2]`. */
    readonly where?: string,
  ) {
    super(`invalid permission rule ${JSON.stringify(rule)}${where ? ` at ${where}` : ""}: ${problem}`);
    this.name = "PermissionRuleError";
  }
}

const TOOL_NAME = /^[A-Za-z0-9_-]+(\*)?$/;

/**
 * Reads the string form of a rule: `ToolName` or `ToolName(content)`, e.g. `Bash(git status:*)`,
 * `Read(src/**)`, `mcp__github`. `Tool(*)` and `Tool()` mean the whole tool.
 */
export function parseRule(text: string, behavior: RuleBehavior, source: RuleSource): PermissionRule {
  const trimmed = text.trim();
  if (trimmed === "") throw new PermissionRuleError(text, "it is empty; write a tool name like Bash or Read");
  const open = trimmed.indexOf("(");
  let toolName = trimmed;
  let ruleContent: string | undefined;
  if (open !== -1) {
    if (!trimmed.endsWith(")")) {
      throw new PermissionRuleError(text, 'the "(" is not closed by a ")" at the end');
    }
    toolName = trimmed.slice(0, open).trim();
    const content = trimmed.slice(open + 1, -1).trim();
    if (content !== "" && content !== "*") ruleContent = content;
  } else if (trimmed.includes(")")) {
    throw new PermissionRuleError(text, 'it has a ")" without a "("');
  }
  if (toolName === "") throw new PermissionRuleError(text, "the tool name before the parentheses is missing");
  if (!TOOL_NAME.test(toolName)) {
    throw new PermissionRuleError(
      text,
      `tool name "${toolName}" may only hold letters, digits, "_" and "-" (and a trailing "*")`,
    );
  }
  return ruleContent === undefined
    ? { toolName, behavior, source }
    : { toolName, ruleContent, behavior, source };
}

/** The string form of a rule, the inverse of parseRule. */
export function formatRule(rule: Pick<PermissionRule, "toolName" | "ruleContent">): string {
  return rule.ruleContent ? `${rule.toolName}(${rule.ruleContent})` : rule.toolName;
}

/** A rule from its string form; by default an allow rule the user accepted in a confirmation. */
export function ruleFromString(
  text: string,
  behavior: RuleBehavior = "allow",
  source: RuleSource = "confirmation",
): PermissionRule {
  return parseRule(text, behavior, source);
}

/**
 * A new context with the rules added (strings become allow rules from a confirmation); rules
 * already present with the same tool, content and behavior are not added twice.
 */
export function addRules(
  context: PermissionContext,
  rules: ReadonlyArray<PermissionRule | string>,
): PermissionContext {
  const next = [...context.rules];
  const seen = new Set(next.map(ruleKey));
  for (const entry of rules) {
    const rule = typeof entry === "string" ? ruleFromString(entry) : entry;
    const key = ruleKey(rule);
    if (seen.has(key)) continue;
    seen.add(key);
    next.push(rule);
  }
  return { ...context, rules: next };
}

function ruleKey(rule: PermissionRule): string {
  return `${rule.behavior} ${formatRule(rule)}`;
}

/**
 * Whether a rule names this tool: the exact name, `mcp__<server>` for every tool of that MCP server
 * (tools are named `mcp__<server>__<tool>`), or a name ending in `*` as a prefix.
 */
export function ruleNamesTool(ruleToolName: string, toolName: string): boolean {
  if (ruleToolName === toolName) return true;
  if (ruleToolName.endsWith("*")) return toolName.startsWith(ruleToolName.slice(0, -1));
  if (ruleToolName.startsWith("mcp__") && !ruleToolName.slice(5).includes("__")) {
    return toolName.startsWith(`${ruleToolName}__`);
  }
  return false;
}
