import { z } from "zod";
import { functionTool } from "../function-tool.js";
import type { ProcessRunner } from "../process-runner.js";
import type { Tool } from "../types.js";
import { bashPermission } from "./bash/bash-permission.js";
import { BASH_COMMAND_ENVIRONMENT } from "./bash-environment.js";
import { localProcessRunner } from "./run-process.js";
import { toolCwd } from "./tool-paths.js";

export interface BashToolOptions {
  /** Default and maximum run time of one command (default 120 s; the model may ask for less). */
  timeoutMs?: number;
  /** Characters of output kept before the command is killed (default 30,000). */
  maxOutputChars?: number;
  /** The shell that runs the command (default `bash`). */
  shell?: string;
  /** Environment of the command (default: this process's), with BASH_COMMAND_ENVIRONMENT on top. */
  env?: NodeJS.ProcessEnv;
  /**
   * Where commands run (default: on the host, `shell -c` with `env`). A workspace passes its runner,
   * e.g. a bubblewrap sandbox; `shell` and `env` are then the runner's business, and the runner
   * adds BASH_COMMAND_ENVIRONMENT (sent with every request) to its environment.
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
  return functionTool({
    name: "Bash",
    description:
      "Runs a bash command in the working directory and returns its output (stdout and stderr). " +
      "Prefer the Read, Glob and Grep tools for reading and searching files.",
    input,
    readOnly: false,
    concurrencySafe: false,
    ...bashPermission(),
    execute: (args, ctx) =>
      runner.run({
        command: args.command,
        cwd: toolCwd(ctx),
        timeoutMs: Math.min(args.timeoutMs ?? maxTimeout, maxTimeout),
        maxOutputChars: options.maxOutputChars ?? 30_000,
        signal: ctx.signal,
        env: BASH_COMMAND_ENVIRONMENT,
      }),
  });
}
