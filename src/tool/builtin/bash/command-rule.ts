import { posix } from "node:path";
import type { RuleMatchContext } from "../../../permission/index.js";
import type { BashAnalysis } from "../bash-analysis.js";
import { INTERPRETERS, SUBCOMMAND_TOOLS } from "../bash-commands.js";

/**
 * Whether a `Bash(...)` rule's content matches a command. Forms:
 * - `git status:*`: the command's words start with `git status`;
 * - text with `*` elsewhere: a glob over the whole command text;
 * - text without `*`: for an allow rule, the command's words start with it; for a deny or ask rule,
 *   its words appear in a row anywhere in the command (`Bash(install)` denies `npm install x`).
 * A program written as a path matches by base name (`/bin/rm` is `rm`). An allow rule must match the
 * program that really runs (wrappers removed) of every command of a compound one. A deny or ask rule
 * matches if any form of any command does, and always matches a command whose program is hidden
 * (`$CMD`, `eval "$x"`), since it may be the one the rule names.
 */
export function matchCommandRule(content: string, analysis: BashAnalysis, match?: RuleMatchContext): boolean {
  if (analysis.commands.length === 0) return false;
  const allow = match === undefined || match.behavior === "allow";
  const test = commandMatcher(content, allow);
  if (allow) {
    return analysis.commands.every(
      (command) => !command.opaque && test(command.forms.at(-1) ?? command.words),
    );
  }
  return analysis.commands.some(
    (command) =>
      command.opaque ||
      command.mayRunAnything !== undefined ||
      command.forms.some(test) ||
      test(command.words),
  );
}

function commandMatcher(content: string, allow: boolean): (words: string[]) => boolean {
  const trimmed = content.trim();
  if (trimmed.endsWith(":*")) {
    const prefix = normalise(trimmed.slice(0, -2));
    return (words) => startsWith(words, prefix);
  }
  if (trimmed.includes("*")) {
    const pattern = trimmed.split("*").map(escapeRegExp).join(".*");
    const regex = new RegExp(`^${pattern}$`, "s");
    const normalised = normalise(trimmed).join(" ");
    const normalisedRegex = new RegExp(`^${normalised.split("*").map(escapeRegExp).join(".*")}$`, "s");
    return (words) => regex.test(words.join(" ")) || normalisedRegex.test(words.join(" "));
  }
  const ruleWords = normalise(trimmed);
  if (allow) return (words) => startsWith(words, ruleWords);
  return (words) => words.some((_, index) => startsWith(words.slice(index), ruleWords));
}

/** Rule text as words, its program by base name. */
function normalise(text: string): string[] {
  const words = text.trim().split(/\s+/).filter(Boolean);
  if (words[0]?.includes("/")) words[0] = posix.basename(words[0]);
  return words;
}

function startsWith(words: readonly string[], prefix: readonly string[]): boolean {
  if (prefix.length === 0 || prefix.length > words.length) return false;
  return prefix.every((word, index) => words[index] === word);
}

/**
 * `Bash(git status:*)`-style rules that would allow this command from now on (at most five), as
 * narrow as the call: a subcommand tool keeps its subcommand (and what `run`/`exec` runs), an
 * interpreter keeps its script or module (`python -m pytest`, never `python`), inline code is
 * kept whole, and a command that may run anything is suggested as written.
 */
export function suggestCommandRules(analysis: BashAnalysis): string[] {
  const prefixes = analysis.commands
    .filter((command) => !command.opaque)
    .map((command) =>
      command.mayRunAnything ? command.words.join(" ") : commandPrefix(command.forms.at(-1) ?? command.words),
    );
  return [...new Set(prefixes)].slice(0, 5).map((prefix) => `Bash(${prefix}:*)`);
}

/** Subcommands whose next word names what they run (`npm run build`, `cargo test foo`). */
const RUNS_NAMED = new Set(["run", "exec", "x", "dlx", "run-script"]);
/** Interpreter options whose value is code: the whole command is the rule. */
const INLINE_CODE = /^-(c|e|E|p|r|-eval|-print|-command)$/;
/** Interpreter options whose value names what runs (`-m module`). */
const NAMES_MODULE = new Set(["-m"]);

function commandPrefix(words: string[]): string {
  const [name = "", second, third] = words;
  if (isInterpreter(name)) return interpreterPrefix(words);
  // `git -C sub status`, `npm --prefix x run y`: an option before the subcommand may pick another
  // repository or project (whose config runs programs); the rule is the command as written.
  if (second?.startsWith("-") && SUBCOMMAND_TOOLS.has(name)) return words.join(" ");
  if (second && SUBCOMMAND_TOOLS.has(name) && !second.startsWith("-")) {
    return third && RUNS_NAMED.has(second) && !third.startsWith("-")
      ? `${name} ${second} ${third}`
      : `${name} ${second}`;
  }
  return name;
}

function isInterpreter(name: string): boolean {
  return INTERPRETERS.has(name) || /^(python|pypy)[\d.]*$/.test(name) || name === "deno";
}

/** `python -u -m pytest -x` → `python -u -m pytest`; `node script.js a` → `node script.js`. */
function interpreterPrefix(words: readonly string[]): string {
  for (let index = 1; index < words.length; index++) {
    const word = words[index]!;
    if (INLINE_CODE.test(word)) return words.join(" ");
    if (NAMES_MODULE.has(word)) return words.slice(0, index + 2).join(" ");
    if (!word.startsWith("-")) return words.slice(0, index + 1).join(" ");
  }
  return words.join(" ");
}

function escapeRegExp(text: string): string {
  return text.replace(/[.+?^${}()|[\]\\]/g, "\\$&");
}
