import { posix } from "node:path";
import type { Command } from "unbash";
import { INTERPRETERS, RISKY_VARIABLE, SHELLS } from "../bash-commands.js";
import { type AnalysisRecord, joinPath } from "./analysis-record.js";
import { type BashAnalysis, LITERAL_WORDS, type ShellCommand, type WordFacts } from "./analysis-types.js";
import { evaluatedOperandReason } from "./evaluated-operands.js";
import { readFind } from "./find.js";
import { analyzeGit } from "./git.js";
import { readOptions } from "./options.js";
import { programScriptFinding } from "./program-scripts.js";
import { readOnlyProgram } from "./read-only-programs.js";
import { safetyReasons } from "./safety.js";
import { analyzeSed } from "./sed.js";
import { MAX_DEPTH } from "./shell-constructs.js";
import { traversalOf } from "./traversals.js";
import { unwrap } from "./wrappers.js";
import { writeTargets } from "./write-paths.js";

/** Analyses a script nested in a command (`bash -c '...'`, `eval '...'`) one level deeper. */
export type NestedAnalysis = (script: string, depth: number) => BashAnalysis;

/**
 * What one simple command does: the wrappers it runs through (`nice`, `env X=1`, `timeout 5`), then
 * the program that really runs, judged on its options, operands and scripts against the
 * read-only allow-list, git's and find's own readers, or the file edits it makes.
 */
export class SimpleCommandReader {
  constructor(
    private readonly record: AnalysisRecord,
    private readonly depth: number,
    private readonly analyzeNested: NestedAnalysis,
  ) {}

  simple(written: string[], words: WordFacts, node: Command): void {
    const forms: string[][] = [];
    let current = [posix.basename(written[0]!), ...written.slice(1)];
    for (;;) {
      forms.push(current);
      const [program, ...args] = current;
      if (words.dynamicWords.has(current[0]!)) {
        this.record.hidden(written, "the program run is computed at run time");
        return;
      }
      for (const reason of safetyReasons(program!, args)) this.record.flag(reason);
      const script = programScriptFinding(program!, args);
      if (script) this.record.flag(script.reason);
      if (script?.runs) {
        this.record.opaque();
        this.record.commands.push({ words: written, forms, mayRunAnything: script.reason });
        return;
      }
      const wrapped = unwrap(program!, args);
      if (!wrapped) break;
      this.record.addPaths(wrapped.paths, words);
      if (wrapped.paths.length > 0 || program === "xargs" || program === "exec") this.record.opaque();
      if (wrapped.unmodelled) {
        this.record.opaque();
        this.record.commands.push({ words: written, forms, mayRunAnything: wrapped.unmodelled });
        return;
      }
      if (wrapped.inner.length === 0) {
        this.record.notReadOnly();
        this.record.commands.push({ words: written, forms });
        return;
      }
      current = [posix.basename(wrapped.inner[0]!), ...wrapped.inner.slice(1)];
    }
    const command: ShellCommand = { words: written, forms };
    this.record.commands.push(command);
    this.record.checkedGlobWords.clear();
    this.classify(current, words, node, command);
    this.uncheckedGlobs(current, words);
  }

  /**
   * A glob is checked only where it is a path (expanded at decision time). Anywhere else (an
   * option's value, a script, a pattern: `awk -F * ...`, `test -v *`) its matches become words of
   * their own, program text included: not read-only, unless the words are only printed.
   */
  private uncheckedGlobs(argv: readonly string[], words: WordFacts): void {
    const [program = "", ...args] = argv;
    if (program === "echo" || program === "printf") return;
    if (args.some((arg) => words.globOf.has(arg) && !this.record.checkedGlobWords.has(arg)))
      this.record.opaque();
  }

  private classify(argv: string[], words: WordFacts, node: Command, command: ShellCommand): void {
    const [program = "", ...args] = argv;
    const dynamic = args.some((arg) => words.dynamicWords.has(arg));
    const evaluated = evaluatedOperandReason(program, args);
    if (evaluated) {
      this.record.flag(evaluated);
      this.record.opaque();
      command.opaque = true;
    }
    if (SHELLS.has(program) || program === "eval" || program === "source" || program === ".") {
      this.nested(program, args, node, command, dynamic);
      return;
    }
    if (program === "alias" && args.some((arg) => arg.includes("="))) command.opaque = true;
    const assigned = assignedVariables(program, args).find((name) => RISKY_VARIABLE.test(name));
    if (assigned !== undefined)
      this.record.hidden(argv, `${program} sets ${assigned}, which changes what later commands run`);
    if (program === "cd") {
      // The directory itself is a path: `cd / && ls` lists `/` without naming it.
      if (!dynamic && args.length === 1 && args[0] !== "-") this.record.addPath(args[0]!);
      this.record.cwd =
        dynamic || args.length !== 1 || args[0] === "-" ? undefined : joinPath(this.record.cwd, args[0]!);
      if (this.record.cwd === undefined) this.record.opaque();
      return;
    }
    if (dynamic && !(words.safeExpansions && readOnlyProgram(program)?.spec.operands === "text"))
      this.record.opaque();
    if (program === "git") {
      this.record.fileEdits = false;
      const verdict = analyzeGit(args);
      if (verdict.unsafe) this.record.flag(verdict.unsafe);
      if (verdict.runs) command.mayRunAnything = verdict.runs;
      if (!verdict.readOnly) this.record.notReadOnly();
      this.record.addPaths(verdict.paths, words);
      if (this.record.cwd !== undefined) this.record.gitDirectories.push(this.record.cwd);
      if (this.record.cwd !== undefined && verdict.printsContent)
        this.record.gitContentDirectories.push(this.record.cwd);
      if (this.record.cwd !== undefined && verdict.content)
        this.record.gitContentReads.push({ ...verdict.content, directory: this.record.cwd });
      if (verdict.subcommand === "grep")
        this.record.traverse(traversalOf("git grep", new Set(), verdict.searched));
      return;
    }
    if (program === "find") {
      this.find(args, words, node);
      return;
    }
    if (program === "sed") {
      const verdict = analyzeSed(args);
      if (verdict.unsafe) this.record.flag(verdict.unsafe);
      if (verdict.runs) command.mayRunAnything = verdict.unsafe;
      if (!verdict.readOnly) this.record.notReadOnly();
      if (!verdict.fileEdit && !verdict.readOnly) this.record.fileEdits = false;
      this.record.addPaths(verdict.paths, words);
      return;
    }
    const spec = readOnlyProgram(program);
    if (spec) {
      const reading = readOptions(args, spec);
      if (reading.unsafe) this.record.flag(`${program} ${reading.unsafe} runs another program or writes`);
      // An option it does not know makes it neither read-only nor a plain file edit.
      if (!reading.known) this.record.opaque();
      // uniq's second operand is its output: a glob may expand to two (`uniq ?.txt` writes b.txt).
      const uniqOutput =
        program === "uniq" &&
        (reading.operands.length > 1 || reading.operands.some((operand) => words.globOf.has(operand)));
      if (reading.writes || uniqOutput) this.record.opaque();
      this.record.addPaths(reading.paths, words);
      const { operands } = spec.spec;
      let named: string[] = [];
      if (operands === "paths") named = reading.operands;
      if (operands === "patternThenPaths") {
        const explicit = ["-e", "--regexp", "-f", "--file", "--files"].some((option) =>
          reading.seen.has(option),
        );
        named = explicit ? reading.operands : reading.operands.slice(1);
      }
      this.record.addPaths(named, words);
      // Option-named files are walked too (`diff -r --from-file=dir` reads the tree under dir).
      this.record.traverse(traversalOf(program, reading.seen, named, reading.paths));
      return;
    }
    this.record.notReadOnly();
    const targets = dynamic ? undefined : writeTargets(program, args);
    if (!targets) {
      this.record.fileEdits = false;
      return;
    }
    if (!targets.fileEdit) this.record.fileEdits = false;
    this.record.addPaths(targets.paths, words);
  }

  /** `bash -c '...'`, `eval '...'`: the text is analysed as a script of its own; a file or stdin is hidden. */
  private nested(
    program: string,
    args: string[],
    node: Command,
    command: ShellCommand,
    dynamic: boolean,
  ): void {
    this.record.opaque();
    const inline = program === "eval" ? args.join(" ") : inlineScript(args);
    const hereString = node.redirects.find((redirect) => redirect.type === "HereString");
    const text = inline ?? (SHELLS.has(program) && hereString?.target ? hereString.target.value : undefined);
    const startup = SHELLS.has(program) ? startupFile(args) : undefined;
    if (startup !== undefined) {
      this.record.addPaths([startup], LITERAL_WORDS);
      command.opaque = true;
      this.record.flag(`${program} runs the start-up file ${startup}`);
    }
    if (SHELLS.has(program) && inline === undefined && args.some((arg) => !arg.startsWith("-"))) {
      this.record.flag(`${program} runs the script file ${args.find((arg) => !arg.startsWith("-"))}`);
    }
    if (program === "source" || program === ".") {
      this.record.addPaths(args.slice(0, 1), LITERAL_WORDS);
    }
    if (text === undefined || dynamic || this.depth >= MAX_DEPTH || program === "source" || program === ".") {
      command.opaque = true;
      this.record.flag(`${program} runs code that cannot be read before it runs`);
      return;
    }
    if (hereString && inline === undefined)
      this.record.flag(`${program} runs the text it is given as shell code`);
    const inner = this.analyzeNested(text, this.depth + 1);
    this.record.commands.push(...inner.commands);
    for (const reason of inner.safety) this.record.flag(reason);
  }

  private find(args: string[], words: WordFacts, node: Command): void {
    const reading = readFind(args);
    this.record.addPaths(reading.paths, words);
    if (!reading.known) this.record.opaque();
    if (reading.writes) this.record.opaque();
    for (const { predicate, command } of reading.runs) {
      this.record.opaque();
      const [program = ""] = command;
      const built =
        program.includes("{}") || (INTERPRETERS.has(program) && command.some((w) => w.includes("{}")));
      if (built)
        this.record.hidden(command, `find ${predicate} runs a program or code built from the names it finds`);
      else if (command.length > 0)
        this.simple(
          command.filter((word) => word !== "{}"),
          words,
          node,
        );
    }
  }
}

/** The file a shell runs before its script (`bash --rcfile f`, `--init-file f`), or undefined. */
function startupFile(args: readonly string[]): string | undefined {
  const at = args.findIndex((arg) => /^--(rcfile|init-file)(=|$)/.test(arg));
  if (at === -1) return undefined;
  const arg = args[at]!;
  return arg.includes("=") ? arg.slice(arg.indexOf("=") + 1) : (args[at + 1] ?? "");
}

/** The text after `-c` for a shell (`bash -c 'x'`, `sh -ec 'x'`), or undefined. */
function inlineScript(args: readonly string[]): string | undefined {
  const flag = args.findIndex((arg) => /^-\w*c\w*$/.test(arg));
  return flag === -1 ? undefined : args[flag + 1];
}

/** Variables a builtin assigns by name (`read NAME`, `printf -v NAME`, `mapfile NAME`). */
function assignedVariables(program: string, args: readonly string[]): string[] {
  if (program === "read" || program === "mapfile" || program === "readarray" || program === "getopts")
    return args.filter((arg) => /^[A-Za-z_]\w*$/.test(arg));
  if (program === "printf")
    return args.flatMap((arg, index) =>
      arg === "-v" ? [args[index + 1] ?? ""] : arg.startsWith("-v") ? [arg.slice(2)] : [],
    );
  return [];
}
