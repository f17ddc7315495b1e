import { posix } from "node:path";
import { decidePermission } from "../../../../src/permission/index.js";
import { analyzeBash, type BashAnalysis, bashTool } from "../../../../src/tool/builtin/index.js";
import { programNames } from "./shims.js";

/** What the permission check says about one command, as far as the differential test needs it. */
export interface Judgement {
  /** It runs without asking, even in explore mode (the read-only fast path). */
  allowed: boolean;
  /**
   * The programs that may run: every wrapper the analysis saw through in this command, and every
   * program on the read-only allow-list (one may run another: egrep runs grep). In the sandbox only
   * these get past the shims.
   */
  declared: string[];
  /** The analysis's own words, for the report. */
  analysis: { readOnly: boolean; paths: string[]; safety: string[]; reason: string };
}

/** Judges a command for a workspace; the real one asks the permission engine, a fake one can lie. */
export type Judge = (command: string, workDir: string) => Promise<Judgement>;

const bash = bashTool();

/** The permission engine's decision in explore mode with no rules, and the analysis behind it. */
export const realJudge: Judge = async (command, workDir) => {
  const decision = await decidePermission(
    bash,
    { command },
    { mode: "explore", rules: [], workingDirectories: [workDir] },
  );
  const analysis = analyzeBash(command);
  return {
    allowed: decision.behavior === "allow",
    declared: declaredPrograms(analysis),
    analysis: {
      readOnly: analysis.readOnly,
      paths: analysis.paths,
      safety: analysis.safety,
      reason: decision.reason,
    },
  };
};

/** Programs that may run when a command is read-only: its wrappers and the whole allow-list. */
export function declaredPrograms(analysis: BashAnalysis): string[] {
  const names = new Set(allowList());
  for (const command of analysis.commands) {
    for (const form of command.forms.slice(0, -1)) names.add(posix.basename(form[0] ?? ""));
  }
  return [...names].filter((name) => /^[\w.[+-]+$/.test(name)).sort();
}

let allowListed: string[] | undefined;

/**
 * The allow-list as the analysis itself has it: every program on this machine that it calls
 * read-only when run bare (`cat`, `sed`...), and git, whose reading subcommands it models. A read-only
 * command may run any of them (egrep runs grep); a shim stops anything else.
 */
export function allowList(): string[] {
  allowListed ??= [...programNames(), ...BUILTINS].filter(
    (name) => name === "git" || (/^[\w.[+-]+$/.test(name) && analyzeBash(name).readOnly),
  );
  return allowListed;
}

/** Shell builtins the analysis may call read-only (never found on PATH). */
const BUILTINS = ["echo", "printf", "pwd", "true", "false", "test", "[", "type"];
