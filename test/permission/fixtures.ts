import type {
  PermissionContext,
  PermissionMode,
  PermissionRule,
  PermissionSubject,
  ToolPermissionResult,
} from "../../src/permission/index.js";
import { matchPathRule, parseRule } from "../../src/permission/index.js";

export const MODES: PermissionMode[] = ["default", "accept_edits", "explore", "bypass", "dont_ask", "plan"];

export function context(
  mode: PermissionMode,
  rules: string[] = [],
  workingDirectories: string[] = [],
): PermissionContext {
  return { mode, rules: rules.map(ruleOf), workingDirectories };
}

/** `allow:Tool(x)` → an allow rule. */
export function ruleOf(text: string): PermissionRule {
  const [behavior, rule] = text.split(/:(.*)/s) as ["allow" | "deny" | "ask", string];
  return parseRule(rule, behavior, "user");
}

/** A subject whose input is `{ value: string }`; rules match `value` by prefix. */
export function subject(options: {
  name?: string;
  readOnly?: boolean;
  editsFiles?: boolean;
  own?: ToolPermissionResult;
  paths?: string[];
  calls?: { own: number };
}): PermissionSubject {
  return {
    name: options.name ?? "Probe",
    readOnly: options.readOnly ?? false,
    editsFiles: options.editsFiles,
    checkPermissions: options.own
      ? () => {
          if (options.calls) options.calls.own++;
          return options.own!;
        }
      : undefined,
    matchRule: (content, input) => String((input as { value?: string }).value ?? "").startsWith(content),
    suggestRules: () => [`${options.name ?? "Probe"}(suggested)`],
    pathsOf: options.paths ? () => options.paths! : undefined,
  };
}

/** A file subject with a `path` input, matching rules as globs the way the built-in file tools do. */
export function fileSubject(name: string, readOnly: boolean): PermissionSubject {
  return {
    name,
    readOnly,
    editsFiles: !readOnly,
    pathsOf: (input) => [(input as { path: string }).path],
    matchRule: (content, input, match) => matchPathRule(content, (input as { path: string }).path, match),
    suggestRules: () => [`${name}(**)`],
  };
}
