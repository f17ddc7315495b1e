import { posix } from "node:path";
import { type Command, forEachChild, parse, type SyntaxNode, type TestExpression, type Word } from "unbash";
import { DOWNLOADERS, HARMLESS_DEVICES, INTERPRETERS, RISKY_VARIABLE, SHELLS } from "../bash-commands.js";
import { AnalysisRecord } from "./analysis-record.js";
import type { BashAnalysis, ShellCommand } from "./analysis-types.js";
import { evaluatedOperandReason, isPlainArithmetic } from "./evaluated-operands.js";
import { CONTROL_FLOW, MAX_COMMAND_CHARS, MODELLED } from "./shell-constructs.js";
import { SimpleCommandReader } from "./simple-command.js";
import { containsRuntimePart, expandWord, onlySafeExpansions } from "./words.js";

const WRITE_REDIRECTS = new Set([">", ">>", ">|", "&>", "&>>", "<>"]);

/**
 * Walks a script's syntax tree (unbash) and records what each node does: control flow and
 * substitutions are safety asks, redirections write or read paths, assignments and expansions that
 * evaluate text are hidden, and every simple command goes to the SimpleCommandReader.
 */
export class SyntaxWalk {
  private readonly record = new AnalysisRecord();
  private readonly simpleCommands: SimpleCommandReader;

  constructor(depth: number) {
    this.simpleCommands = new SimpleCommandReader(this.record, depth, (script, inner) =>
      new SyntaxWalk(inner).run(script),
    );
  }

  run(command: string): BashAnalysis {
    this.parseAndVisit(command);
    return this.record.result();
  }

  /** A parse error, a size or depth limit: the command is hidden, so deny rules match it. */
  private parseAndVisit(command: string): void {
    if (command.length > MAX_COMMAND_CHARS) {
      this.record.hidden([command], `the command is longer than ${MAX_COMMAND_CHARS} characters`);
      return;
    }
    let script: ReturnType<typeof parse>;
    try {
      script = parse(command);
    } catch (error) {
      this.record.hidden([command], `the command could not be parsed (${describeError(error)})`);
      return;
    }
    for (const error of script.errors ?? [])
      this.record.hidden([command], `the command could not be parsed (${error.message})`);
    forEachChild(script, this.visit);
  }

  private visit = (node: SyntaxNode): void => {
    const construct = CONTROL_FLOW[node.type];
    if (construct) this.record.flag(`${construct} is control flow, which a person confirms`);
    if (!MODELLED.has(node.type)) {
      this.record.hidden([node.type], `the shell construct ${node.type} is not modelled`);
      return;
    }
    switch (node.type) {
      case "CommandExpansion":
      case "ArithmeticCommandExpansion":
        this.record.flag("command substitution runs a command hidden inside another");
        break;
      case "ProcessSubstitution":
        this.record.flag("process substitution runs a command hidden inside another");
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
      for (const error of node.errors)
        this.record.flag(`a nested command could not be parsed (${error.message})`);
    }
    forEachChild(node, this.visit);
  };

  private assignment(name: string | undefined, index: Word | undefined): void {
    this.record.notReadOnly();
    // PS4 is expanded (command substitutions included) on every traced line, PROMPT_COMMAND run,
    // PATH picks the programs: what runs next is not in the text, so deny rules match it.
    if (name && RISKY_VARIABLE.test(name))
      this.record.hidden([`${name}=`], `setting ${name} changes what later commands run`);
    if (index && !/^\d+$/.test(index.value))
      this.record.hidden(
        [`${name}[${index.value}]`],
        `the subscript ${index.value} is evaluated as arithmetic`,
      );
  }

  /** Arithmetic that names a variable evaluates its value, which may hold `a[$(cmd)]`. */
  private arithmetic(text: string): void {
    if (!isPlainArithmetic(text))
      this.record.hidden([text], "arithmetic evaluates variables, whose values can hide a command");
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
      this.record.hidden([node.text], `${node.text} evaluates a variable's value, which can hide a command`);
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
    this.record.commands.push(command);
    this.record.fileEdits = false;
    const reason = evaluatedOperandReason("[[", words.slice(1));
    if (reason) {
      this.record.flag(reason);
      command.opaque = true;
    }
    if (dynamic) this.record.opaque();
  }

  private checkPipeline(stages: readonly SyntaxNode[]): void {
    const names = stages.map((stage) => (stage.type === "Command" ? programOf(stage) : undefined));
    for (const [index, name] of names.entries()) {
      if (index === 0 || !name || !INTERPRETERS.has(name)) continue;
      const stage = stages[index] as Command;
      const runsStdin = stage.args.every((arg) => arg.type !== "Word" || arg.value.startsWith("-"));
      const fromDownload = names.slice(0, index).some((prior) => prior && DOWNLOADERS.has(prior));
      if (runsStdin && (SHELLS.has(name) || fromDownload)) {
        this.record.flag(`output is piped into ${name}, which runs it as code`);
        this.record.commands.push({ words: [name], forms: [[name]], opaque: true });
      }
    }
  }

  private redirect(operator: string, target: Word | undefined): void {
    if (operator === ">&" || operator === "<&") {
      if (!target || /^(\d+-?|-)$/.test(target.value)) {
        // `>&1`, `2>&1`, `>&-` stay on the terminal; `>&3` writes wherever descriptor 3 points.
        if (operator === ">&" && target && !/^([012]|-)$/.test(target.value)) this.record.notReadOnly();
        return;
      }
    }
    if (!target) return;
    const expansion = expandWord(target);
    if (expansion.dynamic || expansion.values.length !== 1) {
      this.record.opaque();
      if (WRITE_REDIRECTS.has(operator)) this.record.notReadOnly();
      return;
    }
    const path = expansion.values[0]!;
    const writes = WRITE_REDIRECTS.has(operator) || operator === ">&";
    if (/^\/dev\/(tcp|udp)\//.test(path)) {
      this.record.flag(`redirecting to ${path} opens a network connection`);
      return;
    }
    if (path.startsWith("/dev/")) {
      if (!writes || HARMLESS_DEVICES.test(path)) return;
      // `/dev/fd/3` writes wherever descriptor 3 was opened: a file, maybe.
      if (/^\/dev\/fd\/\d+$/.test(path)) this.record.notReadOnly();
      else this.record.flag(`it writes to the device ${path}`);
      return;
    }
    if (writes) this.record.notReadOnly();
    this.record.addPath(path, expansion.globs[0]);
  }

  private command(node: Command): void {
    if (!node.name) return;
    const expansions = [node.name, ...node.args].map((arg) =>
      arg.type === "Word" ? expandWord(arg) : { values: [arg.text], globs: [undefined], dynamic: true },
    );
    const words = expansions.flatMap((expansion) => expansion.values);
    const name = expansions[0]!;
    if (name.dynamic) {
      this.record.hidden(words, "the command name is computed at run time");
      return;
    }
    if (name.globs.some(Boolean)) {
      this.record.hidden(words, "the command name is a glob pattern");
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
    this.simpleCommands.simple(words, { globOf, dynamicWords, safeExpansions }, node);
  }
}

function wordValues(word: Word): string[] {
  return expandWord(word).values;
}

export function describeError(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

function programOf(node: Command): string | undefined {
  if (!node.name) return undefined;
  const expansion = expandWord(node.name);
  return expansion.dynamic ? undefined : posix.basename(expansion.values[0] ?? "");
}
