import { posix } from "node:path";
import { type Command, forEachChild, parse, type SyntaxNode, type Word } from "unbash";
import {
  DISK_WRITERS,
  DOWNLOADERS,
  ELEVATE,
  EVALUATORS,
  FILE_EDIT_COMMANDS,
  GIT_LISTING_ONLY,
  GIT_LISTING_OPTIONS,
  GIT_READ_ONLY,
  HARMLESS_DEVICES,
  INTERPRETERS,
  READ_ONLY_COMMANDS,
  SAFE_VARIABLES,
  SHELLS,
  SYSTEM_STATE,
  WRAPPERS,
  WRITING_OPTIONS,
} from "./bash-commands.js";

/** One simple command of a script: its words after unquoting (assignments in front dropped). */
export interface ShellCommand {
  words: string[];
}

/** What a shell command does, as far as a parser can tell without running it. */
export interface BashAnalysis {
  commands: ShellCommand[];
  /** Every command only reads, no redirect writes, nothing is computed at run time. */
  readOnly: boolean;
  /** Why a person must confirm no matter what the rules say (injection, dangerous patterns). */
  safety: string[];
  /** Paths the script reads or writes, relative to where it starts when relative. */
  paths: string[];
  /** Every command is read-only or a plain file edit (mkdir, cp, mv, rm, ...) with known paths. */
  fileEditsOnly: boolean;
}

const DYNAMIC_PARTS = new Set([
  "SimpleExpansion",
  "ParameterExpansion",
  "CommandExpansion",
  "ArithmeticExpansion",
  "ProcessSubstitution",
  "BraceExpansion",
]);
const WRITE_REDIRECTS = new Set([">", ">>", ">|", "&>", "&>>", "<>"]);

const cache = new Map<string, BashAnalysis>();

/** Analyses a command with a real bash parser (unbash); results are cached per command string. */
export function analyzeBash(command: string): BashAnalysis {
  const cached = cache.get(command);
  if (cached) return cached;
  const analysis = new Analyzer().run(command);
  if (cache.size > 200) cache.clear();
  cache.set(command, analysis);
  return analysis;
}

class Analyzer {
  private readonly commands: ShellCommand[] = [];
  private readonly safety = new Set<string>();
  private readonly paths: string[] = [];
  private readOnly = true;
  private fileEdits = true;
  /** Where relative paths resolve, as the script `cd`s around; undefined once unknown. */
  private cwd: string | undefined = ".";

  run(command: string): BashAnalysis {
    const script = parse(command);
    for (const error of script.errors ?? []) this.flag(`the command could not be parsed (${error.message})`);
    forEachChild(script, this.visit);
    const safety = [...this.safety];
    const readOnly = this.readOnly && safety.length === 0 && this.commands.length > 0;
    return {
      commands: this.commands,
      readOnly,
      safety,
      paths: this.paths,
      fileEditsOnly: this.fileEdits && safety.length === 0 && this.commands.length > 0,
    };
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

  private visit = (node: SyntaxNode): void => {
    switch (node.type) {
      case "CommandExpansion":
        this.flag("command substitution runs a command hidden inside another");
        break;
      case "ProcessSubstitution":
        this.flag("process substitution runs a command hidden inside another");
        break;
      case "Function":
        this.opaque();
        break;
      case "Pipeline":
        this.checkPipeline(node.commands);
        break;
      case "Redirect":
        this.redirect(node.operator, node.target);
        break;
      case "Command":
        this.command(node);
        break;
    }
    if ("errors" in node && node.type === "Script" && node.errors) {
      for (const error of node.errors) this.flag(`a nested command could not be parsed (${error.message})`);
    }
    forEachChild(node, this.visit);
  };

  private checkPipeline(stages: readonly SyntaxNode[]): void {
    const names = stages.map((stage) => (stage.type === "Command" ? commandName(stage) : undefined));
    for (const [index, name] of names.entries()) {
      if (index === 0 || !name || !INTERPRETERS.has(name)) continue;
      const stage = stages[index] as Command;
      const runsStdin = stage.args.every((arg) => arg.type !== "Word" || arg.value.startsWith("-"));
      const fromDownload = names.slice(0, index).some((prior) => prior && DOWNLOADERS.has(prior));
      if (runsStdin && (SHELLS.has(name) || fromDownload)) {
        this.flag(`output is piped into ${name}, which runs it as code`);
      }
    }
  }

  private redirect(operator: string, target: Word | undefined): void {
    if (operator === ">&" || operator === "<&") {
      if (!target || /^(\d+|-)$/.test(target.value)) return;
    }
    if (!target || isDynamic(target)) {
      this.opaque();
      return;
    }
    const path = target.value;
    const writes = WRITE_REDIRECTS.has(operator) || operator === ">&";
    if (path.startsWith("/dev/")) {
      if (writes && !HARMLESS_DEVICES.test(path)) this.flag(`it writes to the device ${path}`);
      return;
    }
    if (writes) this.notReadOnly();
    this.addPath(path);
  }

  private command(node: Command): void {
    if (!node.name) {
      this.opaque();
      return;
    }
    if (isDynamic(node.name)) {
      this.flag("the command name is computed at run time");
      return;
    }
    if (node.prefix.some((part) => part.type === "Assignment")) this.notReadOnly();
    const words = [node.name.value, ...node.args.map((arg) => (arg.type === "Word" ? arg.value : arg.text))];
    const dynamic = node.args.some((arg) => arg.type !== "Word" || isDynamic(arg));
    this.commands.push({ words });
    this.classify(words, dynamic, node);
  }

  private classify(words: string[], dynamic: boolean, node: Command): void {
    const name = posix.basename(words[0] ?? "");
    const args = words.slice(1);
    const refusal = runsCodeOrDestroys(name, args);
    if (refusal) {
      this.flag(refusal);
      return;
    }
    if (WRAPPERS.has(name)) {
      if (name === "xargs") this.opaque();
      const rest = unwrap(name, args);
      if (rest.length > 0) this.classify(rest, dynamic, node);
      else if (name !== "env" && name !== "time") this.opaque();
      return;
    }
    this.checkDangerous(name, args);
    if (name === "cd") {
      this.cwd = dynamic || args.length !== 1 || args[0] === "-" ? undefined : join(this.cwd, args[0]!);
      if (this.cwd === undefined) this.opaque();
      return;
    }
    if (name === "git") {
      this.fileEdits = false;
      if (!isReadOnlyGit(args)) this.notReadOnly();
      return;
    }
    const pathArgs = READ_ONLY_COMMANDS.get(name);
    if (pathArgs !== undefined) {
      const writing = WRITING_OPTIONS.get(name) ?? [];
      if (args.some((arg) => writing.some((option) => arg === option || arg.startsWith(`${option}=`)))) {
        this.opaque();
      }
      if (name === "uniq" && operands(args).length > 1) this.opaque();
      if (dynamic && (pathArgs !== "none" || !onlySafeExpansions(node))) this.opaque();
      if (pathArgs !== "none") this.addPaths(fileOperands(name, args, pathArgs));
      return;
    }
    this.notReadOnly();
    if (FILE_EDIT_COMMANDS.has(name) && !dynamic) {
      this.addPaths(operands(args));
      return;
    }
    this.fileEdits = false;
  }

  private checkDangerous(name: string, args: string[]): void {
    const flags = args.filter((arg) => arg.startsWith("-"));
    const has = (short: string, long: string) =>
      flags.some((flag) => flag === long || (/^-[a-zA-Z]+$/.test(flag) && flag.includes(short)));
    if (name === "rm" && (has("r", "--recursive") || has("R", "--recursive")) && has("f", "--force")) {
      this.flag("rm -rf deletes recursively without asking");
    }
    if (name === "rm" && operands(args).some((arg) => /^(\/|~\/?|\/\*|\*|\.\.?\/?)$/.test(arg))) {
      this.flag("rm targets a root, home or whole directory");
    }
    if (name === "chmod" && args.some((arg) => /^0?777$|^(a|o|ugo)\+rwx$/.test(arg))) {
      this.flag("chmod 777 makes files writable by everyone");
    }
    if (name === "chown" && has("R", "--recursive")) this.flag("chown -R changes ownership recursively");
  }

  private addPaths(paths: string[]): void {
    for (const path of paths) this.addPath(path);
  }

  private addPath(path: string): void {
    if (this.cwd === undefined) {
      this.opaque();
      return;
    }
    this.paths.push(join(this.cwd, path));
  }
}

function join(cwd: string | undefined, path: string): string {
  if (cwd === undefined || cwd === "." || path.startsWith("/") || path.startsWith("~")) return path;
  return posix.join(cwd, path);
}

/** Why a command must always be confirmed by a person, judged on its name and arguments. */
function runsCodeOrDestroys(name: string, args: string[]): string | undefined {
  if (ELEVATE.has(name)) return `${name} runs a command with elevated privileges`;
  if (EVALUATORS.has(name)) return `${name} runs text as shell code`;
  if (SHELLS.has(name) && args.some((arg) => /^-\w*c/.test(arg))) return `${name} -c runs text as shell code`;
  if (DISK_WRITERS.has(name) || name.startsWith("mkfs")) return `${name} can destroy disks or data`;
  if (SYSTEM_STATE.has(name)) return `${name} changes the state of the machine`;
  return undefined;
}

function commandName(node: Command): string | undefined {
  return node.name && !isDynamic(node.name) ? posix.basename(node.name.value) : undefined;
}

function isDynamic(word: Word): boolean {
  let found = false;
  const visit = (node: SyntaxNode): void => {
    if (DYNAMIC_PARTS.has(node.type)) found = true;
    else if (!found) forEachChild(node, visit);
  };
  forEachChild(word, visit);
  return found;
}

/** Whether every expansion in the command is a plain `$NAME` of a harmless variable. */
function onlySafeExpansions(node: Command): boolean {
  let safe = true;
  const visit = (child: SyntaxNode): void => {
    if (child.type === "SimpleExpansion") {
      if (!SAFE_VARIABLES.has(child.text.replace(/^\$\{?|\}$/g, ""))) safe = false;
    } else if (DYNAMIC_PARTS.has(child.type)) {
      safe = false;
    } else {
      forEachChild(child, visit);
    }
  };
  for (const arg of node.args) visit(arg);
  return safe;
}

/** Non-option arguments (everything after `--` counts). */
function operands(args: string[]): string[] {
  const end = args.indexOf("--");
  const before = (end === -1 ? args : args.slice(0, end)).filter(
    (arg) => !arg.startsWith("-") || arg === "-",
  );
  return end === -1 ? before : [...before, ...args.slice(end + 1)];
}

function fileOperands(name: string, args: string[], pathArgs: "all" | "afterFirst"): string[] {
  if (name === "find") {
    const start = args.findIndex((arg) => arg.startsWith("-") || arg === "(" || arg === "!");
    return start === -1 ? args : args.slice(0, start);
  }
  const values = operands(args).filter((arg) => arg !== "-");
  const explicitPattern = args.some((arg) => arg === "-e" || arg === "-f" || arg.startsWith("--regexp"));
  return pathArgs === "afterFirst" && !explicitPattern ? values.slice(1) : values;
}

function unwrap(name: string, args: string[]): string[] {
  let index = 0;
  while (index < args.length) {
    const arg = args[index]!;
    if (arg.startsWith("-")) index++;
    else if (name === "env" && /^[A-Za-z_][A-Za-z0-9_]*=/.test(arg)) index++;
    else if (name === "timeout" && /^\d/.test(arg)) index++;
    else break;
  }
  return args.slice(index);
}

function isReadOnlyGit(args: string[]): boolean {
  let index = 0;
  while (args[index] === "--no-pager") index++;
  const sub = args[index];
  if (sub === "--version" && args.length === index + 1) return true;
  if (!sub || !GIT_READ_ONLY.has(sub)) return false;
  const rest = args.slice(index + 1);
  if (rest.some((arg) => arg.startsWith("--output") || arg === "--ext-diff")) return false;
  if (sub === "reflog") return rest.length === 0 || rest[0] === "show";
  if (sub === "config") return rest.length > 0 && GIT_LISTING_OPTIONS.has(rest[0]!);
  if (GIT_LISTING_ONLY.has(sub)) return rest.every((arg) => GIT_LISTING_OPTIONS.has(arg));
  return true;
}
