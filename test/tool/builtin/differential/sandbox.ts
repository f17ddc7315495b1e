import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { homedir } from "node:os";
import { join } from "node:path";
import { withCommandEnvironment } from "../../../../src/tool/builtin/index.js";
import { bubblewrapArgs } from "../../../../src/workspace/bubblewrap-args.js";
import { resolveSandboxPolicy } from "../../../../src/workspace/sandbox-policy.js";
import { type CanaryTree, SECRET_VARIABLE } from "./canary-tree.js";
import { DECLARED_VARIABLE, REAL_PATH } from "./shims.js";

/** What one command did in the sandbox. */
export interface SandboxRun {
  output: string;
  exitCode: number | null;
  timedOut: boolean;
}

export interface SandboxOptions {
  /** Program names the shims let through (the analysis's account of what runs). */
  declared: readonly string[];
  timeoutMs: number;
  /** Output kept, stdout and stderr together (default 64 KiB). */
  maxOutputChars?: number;
}

/**
 * The bubblewrap arguments for a command in a canary tree: the project's own sandbox (system
 * read-only, no network, no capabilities, its own pid namespace, dying with its parent) with the
 * canary home over $HOME, the canary /tmp over /tmp, and the tree's other directories at their own
 * paths, all writable except the shims and canary programs, so a write anywhere is seen, not stopped.
 * Nothing in the workspace is hidden: the analysis must hold without the sandbox's help.
 */
export function canaryBubblewrapArgs(tree: CanaryTree): string[] {
  const policy = resolveSandboxPolicy({
    maxProcesses: null,
    writablePaths: [tree.outside, tree.log],
    readOnlyPaths: [tree.shims, tree.canaryBin],
  });
  return [
    ...bubblewrapArgs(policy, { root: tree.work, cwd: tree.work, hidden: { files: [], directories: [] } }),
    "--bind",
    tree.home,
    homedir(),
    "--bind",
    tree.tmp,
    "/tmp",
  ];
}

/** bwrap by absolute path: the environment given to it puts the shims first on PATH. */
export function bwrapPath(): string {
  for (const dir of REAL_PATH) if (existsSync(join(dir, "bwrap"))) return join(dir, "bwrap");
  return "bwrap";
}

/**
 * The environment inside: the shims first on PATH, a secret in a variable, nothing from the host,
 * and what the Bash tool sets for every command (BASH_COMMAND_ENVIRONMENT), so a command runs as
 * the tool would run it.
 */
export function canaryEnvironment(tree: CanaryTree, declared: readonly string[]): NodeJS.ProcessEnv {
  return withCommandEnvironment({
    PATH: [tree.shims, ...REAL_PATH].join(":"),
    HOME: homedir(),
    LANG: "C.UTF-8",
    [SECRET_VARIABLE]: tree.environmentSecret,
    [DECLARED_VARIABLE]: declared.join(" "),
  });
}

/**
 * Runs `command` with `bash -c` in the tree's sandbox, stdin empty, CPU and file size limited; kills
 * the sandbox (and with it every process inside) after the timeout.
 */
export function runInSandbox(
  tree: CanaryTree,
  command: string,
  options: SandboxOptions,
): Promise<SandboxRun> {
  const maxOutput = options.maxOutputChars ?? 64 * 1024;
  // After the command, wait (up to the timeout) for what it left in the background: only the
  // sandbox's init and this shell may remain when the tree is compared. Builtins and absolute
  // paths only, so the harness itself never trips a shim.
  const limits = [
    "ulimit -t 5 -f 20480 2>/dev/null",
    '/bin/bash -c "$1"',
    "status=$?",
    "while :; do n=0; for p in /proc/[0-9]*; do n=$((n+1)); done; [ $n -le 2 ] && break; /bin/sleep 0.05; done",
    "exit $status",
  ].join("\n");
  const args = [...canaryBubblewrapArgs(tree), "--", "/bin/bash", "-c", limits, "differential", command];
  return new Promise((resolve, reject) => {
    const child = spawn(bwrapPath(), args, {
      env: canaryEnvironment(tree, options.declared),
      stdio: ["ignore", "pipe", "pipe"],
    });
    let output = "";
    let timedOut = false;
    const keep = (chunk: Buffer) => {
      if (output.length < maxOutput) output += chunk.toString("utf8").slice(0, maxOutput - output.length);
    };
    child.stdout.on("data", keep);
    child.stderr.on("data", keep);
    const timer = setTimeout(() => {
      timedOut = true;
      child.kill("SIGKILL");
    }, options.timeoutMs);
    child.once("error", (error) => {
      clearTimeout(timer);
      reject(error);
    });
    child.once("close", (code) => {
      clearTimeout(timer);
      resolve({ output, exitCode: code, timedOut });
    });
  });
}
