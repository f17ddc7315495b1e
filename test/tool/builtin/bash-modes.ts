import { expect } from "vitest";
import {
  decidePermission,
  type PermissionDecision,
  type PermissionMode,
  parseRule,
} from "../../../src/permission/index.js";
import { bashTool } from "../../../src/tool/builtin/index.js";

/**
 * Deciding Bash calls in every mode, for the adversarial corpora.
 *
 * Expectations:
 * - `safety`: a safety ask in default and accept_edits (no allow rule silences it), a deny in
 *   dont_ask and explore, and allowed in bypass (which runs everything no deny rule names);
 * - `ask`: a plain ask in default and accept_edits, denied in dont_ask and explore, allowed in bypass;
 * - `deny`: denied in every mode (a deny rule names the program, however it is spelled);
 * - `allow`: allowed in every mode (read-only, inside the working directory).
 */
export type Expectation = "safety" | "ask" | "deny" | "allow";
export const MODES: PermissionMode[] = ["default", "accept_edits", "dont_ask", "bypass", "explore"];

const bash = bashTool();

/** Rules as `behavior:Rule` strings (`deny:Bash(rm:*)`). */
export async function decideBash(
  dir: string,
  command: string,
  mode: PermissionMode,
  rules: string[] = [],
): Promise<PermissionDecision> {
  const parsed = rules.map((text) => {
    const [behavior, rule] = text.split(/:(.*)/s) as ["allow" | "deny" | "ask", string];
    return parseRule(rule, behavior, "user");
  });
  return decidePermission(bash, { command }, { mode, rules: parsed, workingDirectories: [dir] });
}

export async function expectInEveryMode(
  dir: string,
  command: string,
  expectation: Expectation,
  rules: string[] = [],
): Promise<void> {
  for (const mode of MODES) {
    const decision = await decideBash(dir, command, mode, rules);
    const where = `${command} in ${mode} with [${rules.join(", ")}]: ${decision.reason}`;
    if (expectation === "deny") {
      expect(decision.behavior, where).toBe("deny");
      continue;
    }
    if (expectation === "allow") {
      expect(decision.behavior, where).toBe("allow");
      continue;
    }
    if (mode === "bypass") expect(decision.behavior, where).toBe("allow");
    else if (mode === "dont_ask" || mode === "explore") expect(decision.behavior, where).toBe("deny");
    else {
      expect(decision.behavior, where).toBe("ask");
      expect(decision.safety === true, where).toBe(expectation === "safety");
    }
  }
}

export function bashSuggestions(command: string): string[] {
  return bash.suggestRules?.({ command }) ?? [];
}
