import { z } from "zod";
import type { RuleMatchContext, ToolPermissionResult } from "../../permission/index.js";
import { pathPermission } from "../../permission/index.js";
import { functionTool } from "../function-tool.js";
import type { ProcessRunner } from "../process-runner.js";
import type { Tool } from "../types.js";
import { analyzeBash, type BashAnalysis } from "./bash-analysis.js";
import { SUBCOMMAND_TOOLS } from "./bash-commands.js";
import { localProcessRunner } from "./run-process.js";
import { stringField, toolCwd } from "./tool-paths.js";

export interface BashToolOptions {
  /** Default and maximum run time of one command (default 120 s; the model may ask for less). */
  timeoutMs?: number;
  /** Characters of output kept before the command is killed (default 30,000). */
  maxOutputChars?: number;
  /** The shell that runs the command (default `bash`). */
  shell?: string;
  /** Environment of the command (default: this process's). */
  env?: NodeJS.ProcessEnv;
  /**
   * Where commands run (default: on the host, `shell -c` with `env`). A workspace passes its runner,
   * e.g. a bubblewrap sandbox; `shell` and `env` are then the runner's business.
   */
  runner?: ProcessRunner;
}

const input = z.object({
  command: z.string().min(1).describe("The bash command to run"),
  timeoutMs: z.number().int().positive().optional().describe("Stop the command after this many milliseconds"),
  description: z
    .string()
    .optional()
    .describe("What the command does, in a few words, for the person watching"),
});

/**
 * Runs a bash command in the first working directory and streams its output. Read-only commands
 * (`ls`, `cat`, `git status`, ...) pass the read-only fast path; command substitution and dangerous
 * patterns (`rm -rf`, `sudo`, `dd`, `curl | sh`, ...) are safety asks; the paths it touches are checked.
 */
export function bashTool(options: BashToolOptions = {}): Tool<z.infer<typeof input>> {
  const maxTimeout = options.timeoutMs ?? 120_000;
  const runner = options.runner ?? localProcessRunner(options);
  const analysisOf = (value: unknown): BashAnalysis | undefined => {
    const command = stringField(value, "command");
    return command === undefined ? undefined : analyzeBash(command);
  };
  return functionTool({
    name: "Bash",
    description:
      "Runs a bash command in the working directory and returns its output (stdout and stderr). " +
      "Prefer the Read, Glob and Grep tools for reading and searching files.",
    input,
    readOnly: false,
    concurrencySafe: false,
    isReadOnly: (value) => analysisOf(value)?.readOnly ?? false,
    pathsOf: (value) => analysisOf(value)?.paths ?? [],
    checkPermissions: (value, context): ToolPermissionResult => {
      const analysis = analysisOf(value);
      if (!analysis) return { behavior: "passthrough" };
      if (analysis.safety.length > 0) {
        return {
          behavior: "ask",
          safety: true,
          reason: `a person must confirm: ${analysis.safety.join("; ")}`,
        };
      }
      if (context.mode === "accept_edits" && analysis.fileEditsOnly) {
        return pathPermission(analysis.paths, context, { editsFiles: true });
      }
      return { behavior: "passthrough" };
    },
    matchRule: (content, value, match) => {
      const analysis = analysisOf(value);
      return analysis ? matchCommandRule(content, analysis, match) : false;
    },
    suggestRules: (value) => {
      const analysis = analysisOf(value);
      if (!analysis) return [];
      const prefixes = analysis.commands.map((command) => commandPrefix(command.words));
      return [...new Set(prefixes)].slice(0, 5).map((prefix) => `Bash(${prefix}:*)`);
    },
    execute: (args, ctx) =>
      runner.run({
        command: args.command,
        cwd: toolCwd(ctx),
        timeoutMs: Math.min(args.timeoutMs ?? maxTimeout, maxTimeout),
        maxOutputChars: options.maxOutputChars ?? 30_000,
        signal: ctx.signal,
      }),
  });
}

/**
 * `git status:*` matches commands starting with the words `git status`; other content matches the
 * whole command, `*` standing for anything. An allow rule must match every command of a compound
 * one; a deny or ask rule matches if any command does.
 */
export function matchCommandRule(content: string, analysis: BashAnalysis, match?: RuleMatchContext): boolean {
  if (analysis.commands.length === 0) return false;
  const test = commandMatcher(content);
  const texts = analysis.commands.map((command) => command.words.join(" "));
  return match?.behavior === "allow" || match === undefined ? texts.every(test) : texts.some(test);
}

function commandMatcher(content: string): (text: string) => boolean {
  if (content.endsWith(":*")) {
    const prefix = content.slice(0, -2).trim();
    return (text) => text === prefix || text.startsWith(`${prefix} `);
  }
  if (content.includes("*")) {
    const pattern = content.split("*").map(escapeRegExp).join(".*");
    const regex = new RegExp(`^${pattern}$`, "s");
    return (text) => regex.test(text);
  }
  return (text) => text === content.trim();
}

function commandPrefix(words: string[]): string {
  const [name = "", second] = words;
  if (second && SUBCOMMAND_TOOLS.has(name) && !second.startsWith("-")) return `${name} ${second}`;
  return name;
}

function escapeRegExp(text: string): string {
  return text.replace(/[.+?^${}()|[\]\\]/g, "\\$&");
}
