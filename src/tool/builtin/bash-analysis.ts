import { posix } from "node:path";
import { type Command, forEachChild, parse, type SyntaxNode, type TestExpression, type Word } from "unbash";
import { dangerousGlobReason } from "../../permission/index.js";
import { evaluatedOperandReason, isPlainArithmetic } from "./bash/evaluated-operands.js";
import { readFind } from "./bash/find.js";
import { analyzeGit } from "./bash/git.js";
import type { GitContentRead } from "./bash/git-content.js";
import { readOptions } from "./bash/options.js";
import { programScriptFinding } from "./bash/program-scripts.js";
import { readOnlyProgram } from "./bash/read-only-programs.js";
import { safetyReasons } from "./bash/safety.js";
import { analyzeSed } from "./bash/sed.js";
import { type Traversal, traversalOf } from "./bash/traversals.js";
import { containsRuntimePart, expandWord, onlySafeExpansions } from "./bash/words.js";
import { unwrap } from "./bash/wrappers.js";
import { writeTargets } from "./bash/write-paths.js";
import { DOWNLOADERS, HARMLESS_DEVICES, INTERPRETERS, RISKY_VARIABLE, SHELLS } from "./bash-commands.js";
import { globRoot } from "./tool-paths.js";

/** One simple command of a script, as the shell will run it. */
export interface ShellCommand {
  /** Its words after quote removal and brace expansion, the program as written. */
  words: string[];
  /**
   * The forms rules match, outermost first: the program by its base name (`/bin/rm` → `rm`), then
   * each command a wrapper runs (`env X=1 nice rm a` → `env X=1 nice rm a`, `nice rm a`, `rm a`).
   * The last form is the program that really runs.
   */
  forms: string[][];
  /** What runs cannot be read from the text (`$CMD`, `eval "$x"`, `sh < file`): deny rules match it. */
  opaque?: boolean;
  /**
   * Why it may run a program its text does not show (a wrapper form or program runner that is not
   * modelled: `strace x`, `timeout --odd 5 x`, `xargs sh -c`): deny and ask rules match it whatever
   * they name; allow rules match it as written.
   */
  mayRunAnything?: string;
}

/** What a shell command does, as far as a parser can tell without running it. */
export interface BashAnalysis {
  commands: ShellCommand[];
  /** Every program and every option it is given only read; no redirect writes; nothing computed. */
  readOnly: boolean;
  /** Why a person must confirm no matter what allow rules say (control flow, injection, danger). */
  safety: string[];
  /** Paths the script reads or writes, relative to where it starts when relative. */
  paths: string[];
  /** Glob patterns among those paths (unexpanded), relative to where the script starts. */
  globs: string[];
  /** Every command is read-only or a plain file edit (mkdir, cp, mv, rm, sed -i ...) with known paths. */
  fileEditsOnly: boolean;
  /** Recursive reads (`grep -r`, `rg`, `diff -r`, `git grep`): the trees are walked at decision time. */
  traversals: Traversal[];
  /**
   * Where each git command runs, relative to where the script starts: at decision time its
   * repository must be a `.git` directory inside the working directory.
   */
  gitDirectories: string[];
  /**
   * Where each git command that prints tracked files' contents it does not name runs (`git grep`,
   * `git blame`): at decision time every dangerous path the repository tracks is checked as a path it reads.
   */
  gitContentDirectories: string[];
  /**
   * What each git command may print of files' contents from the index or from history (`git diff`,
   * `git show`, `git log -p`), and where it runs: at decision time it must be limited to files by
   * pathspecs, or (the index only) the repository must track no dangerous path; otherwise it asks.
   */
  gitContentReads: (GitContentRead & { directory: string })[];
}

const WRITE_REDIRECTS = new Set([">", ">>", ">|", "&>", "&>>", "<>"]);
const CONTROL_FLOW: Record<string, string> = {
  If: "an if statement",
  For: "a for loop",
  ArithmeticFor: "a for loop",
  While: "a while loop",
  Case: "a case statement",
  Select: "a select loop",
  Subshell: "a subshell",
  BraceGroup: "a { ...; } group",
  Function: "a function definition",
  Coproc: "a coprocess",
  ArithmeticCommand: "an arithmetic command",
};
const MAX_DEPTH = 4;
/** Longer commands are not parsed at all: they count as hidden (deny rules match them). */
const MAX_COMMAND_CHARS = 100_000;
/** Node types the analysis models; any other asks, and deny rules match it. */
const MODELLED = new Set([
  "Script",
  "Statement",
  "Command",
  "Pipeline",
  "AndOr",
  "Negation",
  "Time",
  "CompoundList",
  "Redirected",
  "Redirect",
  "Assignment",
  "ArrayValue",
  "Word",
  "FileDescriptor",
  "HereDocDelimiter",
  "HereDocBody",
  "TestCommand",
  "Elif",
  "CaseItem",
  ...Object.keys(CONTROL_FLOW),
  // Inside words, expressions and redirections: their expansions are judged where they appear.
  ...["Literal", "Glob", "ExtendedGlob", "BraceExpansion", "SingleQuoted", "DoubleQuoted", "AnsiCQuoted"],
  ...["LocaleString", "SimpleExpansion", "ParameterExpansion", "CommandExpansion", "ProcessSubstitution"],
  ...["ArithmeticExpansion", "ArithmeticCommandExpansion", "ArithmeticBinary", "ArithmeticUnary"],
  ...["ArithmeticTernary", "ArithmeticGroup", "ArithmeticWord", "TestUnary", "TestBinary", "TestLogical"],
  ...["TestNot", "TestGroup", "Default", "Remove", "Replace", "Slice", "Transform", "CaseModification"],
  ...["Names", "FileDescriptorVariable", "HereDoc", "HereString"],
]);

const cache = new Map<string, BashAnalysis>();

/** Analyses a command with a real bash parser (unbash); results are cached per command string. */
export function analyzeBash(command: string): BashAnalysis {
  const cached = cache.get(command);
  if (cached) return cached;
  let analysis: BashAnalysis;
  try {
    analysis = new Analyzer(0).run(command);
  } catch (error) {
    // A failure of the analysis itself never fails open: the command is hidden, deny rules match it.
    analysis = failedAnalysis(command, describe(error));
  }
  if (cache.size > 200) cache.clear();
  cache.set(command, analysis);
  return analysis;
}

class Analyzer {
  private readonly commands: ShellCommand[] = [];
  private readonly safety = new Set<string>();
  private readonly paths: string[] = [];
  private readonly globs: string[] = [];
  private readonly traversals: Traversal[] = [];
  private readonly gitDirectories: string[] = [];
  private readonly gitContentDirectories: string[] = [];
  private readonly gitContentReads: BashAnalysis["gitContentReads"] = [];
  /** Glob words of the command being classified that were checked as paths. */
  private readonly checkedGlobWords = new Set<string>();
  private readOnly = true;
  private fileEdits = true;
  /** Where relative paths resolve, as the script `cd`s around; undefined once unknown. */
  private cwd: string | undefined = ".";

  constructor(private readonly depth: number) {}

  run(command: string): BashAnalysis {
    this.parseAndVisit(command);
    const safety = [...this.safety];
    const some = this.commands.length > 0;
    return {
      commands: this.commands,
      readOnly: this.readOnly && safety.length === 0 && some,
      safety,
      paths: this.paths,
      globs: this.globs,
      fileEditsOnly: this.fileEdits && safety.length === 0 && some,
      traversals: this.traversals,
      gitDirectories: this.gitDirectories,
      gitContentDirectories: this.gitContentDirectories,
      gitContentReads: this.gitContentReads,
    };
  }

  /** A parse error, a size or depth limit: the command is hidden, so deny rules match it. */
  private parseAndVisit(command: string): void {
    if (command.length > MAX_COMMAND_CHARS) {
      this.hidden([command], `the command is longer than ${MAX_COMMAND_CHARS} characters`);
      return;
    }
    let script: ReturnType<typeof parse>;
    try {
      script = parse(command);
    } catch (error) {
      this.hidden([command], `the command could not be parsed (${describe(error)})`);
      return;
    }
    for (const error of script.errors ?? [])
      this.hidden([command], `the command could not be parsed (${error.message})`);
    forEachChild(script, this.visit);
  }

  private flag(reason: string): void {
    this.safety.add(reason);
    this.readOnly = false;
  }

  private notReadOnly(): void {
    this.readOnly = false;
  }

  private opaque(): void {
    this.readOnly = false;
    this.fileEdits = false;
  }

  private hidden(words: string[], reason: string): void {
    this.flag(reason);
    this.opaque();
    this.commands.push({ words, forms: [words], opaque: true });
  }

  private visit = (node: SyntaxNode): void => {
    const construct = CONTROL_FLOW[node.type];
    if (construct) this.flag(`${construct} is control flow, which a person confirms`);
    if (!MODELLED.has(node.type)) {
      this.hidden([node.type], `the shell construct ${node.type} is not modelled`);
      return;
    }
    switch (node.type) {
      case "CommandExpansion":
      case "ArithmeticCommandExpansion":
        this.flag("command substitution runs a command hidden inside another");
        break;
      case "ProcessSubstitution":
        this.flag("process substitution runs a command hidden inside another");
        break;
      case "Pipeline":
        this.checkPipeline(node.commands);
        break;
      case "Redirect":
        this.redirect(node.operator, node.target);
        break;
      case "Assignment":
        this.assignment(node.name, node.index);
        break;
      case "TestCommand":
        this.testCommand(node);
        break;
      case "ArithmeticCommand":
      case "ArithmeticExpansion":
        this.arithmetic(node.type === "ArithmeticCommand" ? node.body : node.text);
        break;
      case "ArithmeticFor":
        this.arithmetic("x");
        break;
      case "ParameterExpansion":
        this.parameterExpansion(node);
        break;
      case "Command":
        this.command(node);
        break;
    }
    if (node.type === "Script" && node.errors) {
      for (const error of node.errors) this.flag(`a nested command could not be parsed (${error.message})`);
    }
    forEachChild(node, this.visit);
  };

  private assignment(name: string | undefined, index: Word | undefined): void {
    this.notReadOnly();
    // PS4 is expanded (command substitutions included) on every traced line, PROMPT_COMMAND run,
    // PATH picks the programs: what runs next is not in the text, so deny rules match it.
    if (name && RISKY_VARIABLE.test(name))
      this.hidden([`${name}=`], `setting ${name} changes what later commands run`);
    if (index && !/^\d+$/.test(index.value))
      this.hidden([`${name}[${index.value}]`], `the subscript ${index.value} is evaluated as arithmetic`);
  }

  /** Arithmetic that names a variable evaluates its value, which may hold `a[$(cmd)]`. */
  private arithmetic(text: string): void {
    if (!isPlainArithmetic(text))
      this.hidden([text], "arithmetic evaluates variables, whose values can hide a command");
  }

  /**
   * `${!x}` (indirection), `${a[x]}` (a subscript) and `${a:x}` (a slice) evaluate a variable's value
   * as a name or arithmetic, which may be `b[$(cmd)]`: hidden unless plain.
   */
  private parameterExpansion(node: SyntaxNode & { type: "ParameterExpansion" }): void {
    const plain = (word: Word | undefined) => word === undefined || /^(-?\d+|@|\*)?$/.test(word.value.trim());
    const indirect = node.prefix === "!" && !/^\$\{![A-Za-z_]\w*[*@]\}$/.test(node.text);
    const slice =
      node.operation?.type === "Slice" && !(plain(node.operation.offset) && plain(node.operation.length));
    // `${y@P}` expands the value as a prompt, running the `$(cmd)` it holds; an operator not known
    // to be harmless counts as one that does.
    const transform =
      node.operation?.type === "Transform" && !/^[QEAaKkUuL]$/.test(node.operation.operand?.value ?? "");
    if (indirect || !plain(node.index) || slice || transform)
      this.hidden([node.text], `${node.text} evaluates a variable's value, which can hide a command`);
  }

  /** `[[ ... ]]`, judged like `test`: operators and operands in order. */
  private testCommand(node: SyntaxNode & { type: "TestCommand" }): void {
    const words: string[] = ["[["];
    let dynamic = false;
    const collect = (expression: TestExpression): void => {
      switch (expression.type) {
        case "TestUnary":
          words.push(expression.operator);
          words.push(...wordValues(expression.operand));
          dynamic ||= containsRuntimePart(expression.operand);
          break;
        case "TestBinary":
          words.push(...wordValues(expression.left), expression.operator, ...wordValues(expression.right));
          dynamic ||= containsRuntimePart(expression.left) || containsRuntimePart(expression.right);
          break;
        case "TestLogical":
          for (const operand of expression.operands) collect(operand);
          break;
        case "TestNot":
          collect(expression.operand);
          break;
        case "TestGroup":
          collect(expression.expression);
          break;
      }
    };
    collect(node.expression);
    const command: ShellCommand = { words, forms: [words] };
    this.commands.push(command);
    this.fileEdits = false;
    const reason = evaluatedOperandReason("[[", words.slice(1));
    if (reason) {
      this.flag(reason);
      command.opaque = true;
    }
    if (dynamic) this.opaque();
  }

  private checkPipeline(stages: readonly SyntaxNode[]): void {
    const names = stages.map((stage) => (stage.type === "Command" ? programOf(stage) : undefined));
    for (const [index, name] of names.entries()) {
      if (index === 0 || !name || !INTERPRETERS.has(name)) continue;
      const stage = stages[index] as Command;
      const runsStdin = stage.args.every((arg) => arg.type !== "Word" || arg.value.startsWith("-"));
      const fromDownload = names.slice(0, index).some((prior) => prior && DOWNLOADERS.has(prior));
      if (runsStdin && (SHELLS.has(name) || fromDownload)) {
        this.flag(`output is piped into ${name}, which runs it as code`);
        this.commands.push({ words: [name], forms: [[name]], opaque: true });
      }
    }
  }

  private redirect(operator: string, target: Word | undefined): void {
    if (operator === ">&" || operator === "<&") {
      if (!target || /^(\d+-?|-)$/.test(target.value)) {
        // `>&1`, `2>&1`, `>&-` stay on the terminal; `>&3` writes wherever descriptor 3 points.
        if (operator === ">&" && target && !/^([012]|-)$/.test(target.value)) this.notReadOnly();
        return;
      }
    }
    if (!target) return;
    const expansion = expandWord(target);
    if (expansion.dynamic || expansion.values.length !== 1) {
      this.opaque();
      if (WRITE_REDIRECTS.has(operator)) this.notReadOnly();
      return;
    }
    const path = expansion.values[0]!;
    const writes = WRITE_REDIRECTS.has(operator) || operator === ">&";
    if (/^\/dev\/(tcp|udp)\//.test(path)) {
      this.flag(`redirecting to ${path} opens a network connection`);
      return;
    }
    if (path.startsWith("/dev/")) {
      if (!writes || HARMLESS_DEVICES.test(path)) return;
      // `/dev/fd/3` writes wherever descriptor 3 was opened: a file, maybe.
      if (/^\/dev\/fd\/\d+$/.test(path)) this.notReadOnly();
      else this.flag(`it writes to the device ${path}`);
      return;
    }
    if (writes) this.notReadOnly();
    this.addPath(path, expansion.globs[0]);
  }

  private command(node: Command): void {
    if (!node.name) return;
    const expansions = [node.name, ...node.args].map((arg) =>
      arg.type === "Word" ? expandWord(arg) : { values: [arg.text], globs: [undefined], dynamic: true },
    );
    const words = expansions.flatMap((expansion) => expansion.values);
    const name = expansions[0]!;
    if (name.dynamic) {
      this.hidden(words, "the command name is computed at run time");
      return;
    }
    if (name.globs.some(Boolean)) {
      this.hidden(words, "the command name is a glob pattern");
      return;
    }
    const globOf = new Map<string, string>();
    const dynamicWords = new Set<string>();
    for (const expansion of expansions.slice(1)) {
      expansion.values.forEach((value, index) => {
        const glob = expansion.globs[index];
        if (glob) globOf.set(value, glob);
        if (expansion.dynamic) dynamicWords.add(value);
      });
    }
    const safeExpansions = onlySafeExpansions(node);
    this.simple(words, { globOf, dynamicWords, safeExpansions }, node);
  }

  private simple(written: string[], words: WordFacts, node: Command): void {
    const forms: string[][] = [];
    let current = [posix.basename(written[0]!), ...written.slice(1)];
    for (;;) {
      forms.push(current);
      const [program, ...args] = current;
      if (words.dynamicWords.has(current[0]!)) {
        this.hidden(written, "the program run is computed at run time");
        return;
      }
      for (const reason of safetyReasons(program!, args)) this.flag(reason);
      const script = programScriptFinding(program!, args);
      if (script) this.flag(script.reason);
      if (script?.runs) {
        this.opaque();
        this.commands.push({ words: written, forms, mayRunAnything: script.reason });
        return;
      }
      const wrapped = unwrap(program!, args);
      if (!wrapped) break;
      this.addPaths(wrapped.paths, words);
      if (wrapped.paths.length > 0 || program === "xargs" || program === "exec") this.opaque();
      if (wrapped.unmodelled) {
        this.opaque();
        this.commands.push({ words: written, forms, mayRunAnything: wrapped.unmodelled });
        return;
      }
      if (wrapped.inner.length === 0) {
        this.notReadOnly();
        this.commands.push({ words: written, forms });
        return;
      }
      current = [posix.basename(wrapped.inner[0]!), ...wrapped.inner.slice(1)];
    }
    const command: ShellCommand = { words: written, forms };
    this.commands.push(command);
    this.checkedGlobWords.clear();
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
    if (args.some((arg) => words.globOf.has(arg) && !this.checkedGlobWords.has(arg))) this.opaque();
  }

  private classify(argv: string[], words: WordFacts, node: Command, command: ShellCommand): void {
    const [program = "", ...args] = argv;
    const dynamic = args.some((arg) => words.dynamicWords.has(arg));
    const evaluated = evaluatedOperandReason(program, args);
    if (evaluated) {
      this.flag(evaluated);
      this.opaque();
      command.opaque = true;
    }
    if (SHELLS.has(program) || program === "eval" || program === "source" || program === ".") {
      this.nested(program, args, node, command, dynamic);
      return;
    }
    if (program === "alias" && args.some((arg) => arg.includes("="))) command.opaque = true;
    const assigned = assignedVariables(program, args).find((name) => RISKY_VARIABLE.test(name));
    if (assigned !== undefined)
      this.hidden(argv, `${program} sets ${assigned}, which changes what later commands run`);
    if (program === "cd") {
      // The directory itself is a path: `cd / && ls` lists `/` without naming it.
      if (!dynamic && args.length === 1 && args[0] !== "-") this.addPath(args[0]!);
      this.cwd = dynamic || args.length !== 1 || args[0] === "-" ? undefined : join(this.cwd, args[0]!);
      if (this.cwd === undefined) this.opaque();
      return;
    }
    if (dynamic && !(words.safeExpansions && readOnlyProgram(program)?.spec.operands === "text"))
      this.opaque();
    if (program === "git") {
      this.fileEdits = false;
      const verdict = analyzeGit(args);
      if (verdict.unsafe) this.flag(verdict.unsafe);
      if (verdict.runs) command.mayRunAnything = verdict.runs;
      if (!verdict.readOnly) this.notReadOnly();
      this.addPaths(verdict.paths, words);
      if (this.cwd !== undefined) this.gitDirectories.push(this.cwd);
      if (this.cwd !== undefined && verdict.printsContent) this.gitContentDirectories.push(this.cwd);
      if (this.cwd !== undefined && verdict.content)
        this.gitContentReads.push({ ...verdict.content, directory: this.cwd });
      if (verdict.subcommand === "grep") this.traverse(traversalOf("git grep", new Set(), verdict.searched));
      return;
    }
    if (program === "find") {
      this.find(args, words, node);
      return;
    }
    if (program === "sed") {
      const verdict = analyzeSed(args);
      if (verdict.unsafe) this.flag(verdict.unsafe);
      if (verdict.runs) command.mayRunAnything = verdict.unsafe;
      if (!verdict.readOnly) this.notReadOnly();
      if (!verdict.fileEdit && !verdict.readOnly) this.fileEdits = false;
      this.addPaths(verdict.paths, words);
      return;
    }
    const spec = readOnlyProgram(program);
    if (spec) {
      const reading = readOptions(args, spec);
      if (reading.unsafe) this.flag(`${program} ${reading.unsafe} runs another program or writes`);
      // An option it does not know makes it neither read-only nor a plain file edit.
      if (!reading.known) this.opaque();
      // uniq's second operand is its output: a glob may expand to two (`uniq ?.txt` writes b.txt).
      const uniqOutput =
        program === "uniq" &&
        (reading.operands.length > 1 || reading.operands.some((operand) => words.globOf.has(operand)));
      if (reading.writes || uniqOutput) this.opaque();
      this.addPaths(reading.paths, words);
      const { operands } = spec.spec;
      let named: string[] = [];
      if (operands === "paths") named = reading.operands;
      if (operands === "patternThenPaths") {
        const explicit = ["-e", "--regexp", "-f", "--file", "--files"].some((option) =>
          reading.seen.has(option),
        );
        named = explicit ? reading.operands : reading.operands.slice(1);
      }
      this.addPaths(named, words);
      // Option-named files are walked too (`diff -r --from-file=dir` reads the tree under dir).
      this.traverse(traversalOf(program, reading.seen, named, reading.paths));
      return;
    }
    this.notReadOnly();
    const targets = dynamic ? undefined : writeTargets(program, args);
    if (!targets) {
      this.fileEdits = false;
      return;
    }
    if (!targets.fileEdit) this.fileEdits = false;
    this.addPaths(targets.paths, words);
  }

  /** `bash -c '...'`, `eval '...'`: the text is analysed as a script of its own; a file or stdin is hidden. */
  private nested(
    program: string,
    args: string[],
    node: Command,
    command: ShellCommand,
    dynamic: boolean,
  ): void {
    this.opaque();
    const inline = program === "eval" ? args.join(" ") : inlineScript(args);
    const hereString = node.redirects.find((redirect) => redirect.type === "HereString");
    const text = inline ?? (SHELLS.has(program) && hereString?.target ? hereString.target.value : undefined);
    const startup = SHELLS.has(program) ? startupFile(args) : undefined;
    if (startup !== undefined) {
      this.addPaths([startup], { globOf: new Map(), dynamicWords: new Set(), safeExpansions: false });
      command.opaque = true;
      this.flag(`${program} runs the start-up file ${startup}`);
    }
    if (SHELLS.has(program) && inline === undefined && args.some((arg) => !arg.startsWith("-"))) {
      this.flag(`${program} runs the script file ${args.find((arg) => !arg.startsWith("-"))}`);
    }
    if (program === "source" || program === ".") {
      this.addPaths(args.slice(0, 1), { globOf: new Map(), dynamicWords: new Set(), safeExpansions: false });
    }
    if (text === undefined || dynamic || this.depth >= MAX_DEPTH || program === "source" || program === ".") {
      command.opaque = true;
      this.flag(`${program} runs code that cannot be read before it runs`);
      return;
    }
    if (hereString && inline === undefined) this.flag(`${program} runs the text it is given as shell code`);
    const inner = new Analyzer(this.depth + 1).run(text);
    this.commands.push(...inner.commands);
    for (const reason of inner.safety) this.flag(reason);
  }

  private find(args: string[], words: WordFacts, node: Command): void {
    const reading = readFind(args);
    this.addPaths(reading.paths, words);
    if (!reading.known) this.opaque();
    if (reading.writes) this.opaque();
    for (const { predicate, command } of reading.runs) {
      this.opaque();
      const [program = ""] = command;
      const built =
        program.includes("{}") || (INTERPRETERS.has(program) && command.some((w) => w.includes("{}")));
      if (built)
        this.hidden(command, `find ${predicate} runs a program or code built from the names it finds`);
      else if (command.length > 0)
        this.simple(
          command.filter((word) => word !== "{}"),
          words,
          node,
        );
    }
  }

  /** Records a recursive read, its roots joined to where the script is. */
  private traverse(traversal: Traversal | undefined): void {
    if (!traversal) return;
    if (this.cwd === undefined) {
      this.opaque();
      return;
    }
    const cwd = this.cwd;
    this.traversals.push({ ...traversal, roots: traversal.roots.map((root) => join(cwd, root)) });
  }

  private addPaths(paths: readonly string[], words: WordFacts): void {
    for (const path of paths) this.addPath(path, words.globOf.get(path));
  }

  private addPath(path: string, glob?: string): void {
    // `~root/x`, `~+/x`, `~-/x`: another user's home, $PWD, $OLDPWD, none of them known here.
    if (this.cwd === undefined || /^~[^/]/.test(path)) {
      this.opaque();
      return;
    }
    if (glob === undefined) {
      this.paths.push(join(this.cwd, path));
      return;
    }
    this.checkedGlobWords.add(path);
    const danger = dangerousGlobReason(glob);
    if (danger) this.flag(`${path} is a glob that can reach a sensitive path (${danger})`);
    const scan = globRoot(glob);
    this.paths.push(join(this.cwd, scan));
    this.globs.push(join(this.cwd, glob));
  }
}

interface WordFacts {
  /** Word values that hold an unquoted glob, with their pattern. */
  globOf: Map<string, string>;
  /** Word values only known at run time. */
  dynamicWords: Set<string>;
  /** Every expansion in the command is a plain `$NAME` of a harmless variable. */
  safeExpansions: boolean;
}

function join(cwd: string | undefined, path: string): string {
  if (cwd === undefined || cwd === "." || path.startsWith("/") || path.startsWith("~")) return path;
  return posix.join(cwd, path);
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

function failedAnalysis(command: string, reason: string): BashAnalysis {
  return {
    commands: [{ words: [command], forms: [[command]], opaque: true }],
    readOnly: false,
    safety: [`the command could not be analysed (${reason})`],
    paths: [],
    globs: [],
    fileEditsOnly: false,
    traversals: [],
    gitDirectories: [],
    gitContentDirectories: [],
    gitContentReads: [],
  };
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

function wordValues(word: Word): string[] {
  return expandWord(word).values;
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

function programOf(node: Command): string | undefined {
  if (!node.name) return undefined;
  const expansion = expandWord(node.name);
  return expansion.dynamic ? undefined : posix.basename(expansion.values[0] ?? "");
}
