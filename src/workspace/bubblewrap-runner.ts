import { execFile } from "node:child_process";
import { homedir } from "node:os";
import { isAbsolute } from "node:path";
import { isInside } from "../permission/index.js";
import { withCommandEnvironment } from "../tool/builtin/bash-environment.js";
import { runProgram } from "../tool/builtin/run-process.js";
import type { ProcessRequest, ProcessRunner } from "../tool/index.js";
import { bubblewrapArgs, limitedCommand, sandboxEnv } from "./bubblewrap-args.js";
import { SandboxUnavailableError } from "./errors.js";
import { HiddenPathScanner } from "./hidden-path-scanner.js";
import { PidsCgroup } from "./pids-cgroup.js";
import { type ResolvedSandboxPolicy, resolveSandboxPolicy, type SandboxPolicy } from "./sandbox-policy.js";

/** Joins the pids cgroup named by $0, then becomes bubblewrap: the whole tree starts inside it. */
const JOIN_CGROUP = 'echo $$ > "$0" && exec "$@"';

/** Policies whose sandbox started here once (the check does not depend on the root): checked once per process. */
const preflights = new Map<string, Promise<void>>();

/**
 * Runs every command in a fresh bubblewrap sandbox whose only writable host directory is `root`
 * (see SandboxPolicy for what else it sees). Before its first command it checks that the sandbox
 * starts here and otherwise throws SandboxUnavailableError: it never runs anything on the host. Killing the outer bwrap on a timeout, the output limit
 * or an abort takes the whole tree down: the sandbox's pid 1 dies with its parent (`--die-with-parent`)
 * and a pid namespace does not outlive its pid 1; the pids cgroup is swept as well.
 */
export class BubblewrapRunner implements ProcessRunner {
  readonly kind = "bubblewrap";
  readonly policy: ResolvedSandboxPolicy;
  /** What each command's sandbox covers, rescanned before every command (listings cached per workspace). */
  readonly #hidden: HiddenPathScanner;

  constructor(
    readonly root: string,
    policy: SandboxPolicy = {},
  ) {
    if (!isAbsolute(root))
      throw new TypeError(`BubblewrapRunner: root must be an absolute path, got "${root}"`);
    if (isInside(homedir(), root))
      throw new TypeError(
        `BubblewrapRunner: the workspace root ${root} contains the home directory ${homedir()}; ` +
          "a sandbox over it would show every file there: use a directory of its own",
      );
    this.policy = resolveSandboxPolicy(policy);
    this.#hidden = scannerFor(root, this.policy);
  }

  /**
   * Checks, once per process and policy, that this sandbox starts here (before the first command);
   * a failure is not remembered, so the next command tries again and fails the same clear way.
   */
  ready(): Promise<void> {
    // A bare `bwrap` is looked up on PATH, so the answer depends on it too.
    const lookup = this.policy.bwrapPath.includes("/") ? "" : process.env.PATH;
    const key = JSON.stringify([this.policy, lookup]);
    let check = preflights.get(key);
    if (!check) {
      check = this.check();
      preflights.set(key, check);
      check.catch(() => preflights.delete(key));
    }
    return check;
  }

  /** Starts an empty sandbox once; throws SandboxUnavailableError saying why it cannot run here. */
  async check(): Promise<void> {
    const args = [
      ...bubblewrapArgs(this.policy, { root: this.root, cwd: this.root, hidden: noHidden() }),
      "true",
    ];
    await new Promise<void>((resolve, reject) => {
      execFile(this.policy.bwrapPath, args, { timeout: 10_000 }, (error, _stdout, stderr) => {
        if (!error) return resolve();
        reject(startFailure(this.policy.bwrapPath, error as NodeJS.ErrnoException, stderr));
      });
    });
    if (this.policy.maxProcesses !== null) {
      const cgroup = await PidsCgroup.create(this.policy.maxProcesses);
      if (typeof cgroup === "string") throw noProcessLimit(cgroup);
      await cgroup.kill();
    }
  }

  run(request: ProcessRequest): AsyncIterable<string> {
    return this.#run(request);
  }

  async *#run(request: ProcessRequest): AsyncGenerator<string> {
    if (!isInside(request.cwd, this.root))
      throw new Error(
        `the sandbox can only run commands inside its workspace ${this.root}, not in ${request.cwd}`,
      );
    await this.ready();
    const { policy } = this;
    const hidden = await this.#hidden.scan();
    const sandbox = [
      ...bubblewrapArgs(policy, { root: this.root, cwd: request.cwd, hidden }),
      "--",
      ...limitedCommand(policy, request.command),
    ];
    let cgroup: PidsCgroup | undefined;
    if (policy.maxProcesses !== null) {
      const created = await PidsCgroup.create(policy.maxProcesses);
      if (typeof created === "string") throw noProcessLimit(created);
      cgroup = created;
    }
    try {
      yield* runProgram({
        ...request,
        file: cgroup ? "/bin/sh" : policy.bwrapPath,
        args: cgroup ? ["-c", JOIN_CGROUP, cgroup.procsFile, policy.bwrapPath, ...sandbox] : sandbox,
        env: withCommandEnvironment(sandboxEnv(policy), request.env ?? {}),
        describeStartError: (error) => startFailure(policy.bwrapPath, error, ""),
      });
    } finally {
      await cgroup?.kill();
    }
  }
}

/** Scanners shared by the runners over one workspace (the service makes a runner per command), most recent last. */
const scanners = new Map<string, HiddenPathScanner>();
const MAX_SCANNERS = 16;

/** The scanner for this root and policy, so its cached listings outlive one runner. */
function scannerFor(root: string, policy: ResolvedSandboxPolicy): HiddenPathScanner {
  const key = JSON.stringify([root, policy.hiddenFiles, policy.hiddenDirectories, policy.maxScanEntries]);
  let scanner = scanners.get(key);
  scanners.delete(key);
  scanner ??= new HiddenPathScanner(
    root,
    { files: policy.hiddenFiles, directories: policy.hiddenDirectories },
    { limits: { maxEntries: policy.maxScanEntries } },
  );
  scanners.set(key, scanner);
  if (scanners.size > MAX_SCANNERS) scanners.delete(scanners.keys().next().value!);
  return scanner;
}

function noHidden() {
  return { files: [], directories: [] };
}

function noProcessLimit(why: string): SandboxUnavailableError {
  return new SandboxUnavailableError(
    "no_process_limit",
    `the sandbox cannot limit processes here (no writable pids cgroup: ${why}); ` +
      "run as a user that may create cgroups, or set maxProcesses: null to go without a process limit",
  );
}

function startFailure(bwrap: string, error: NodeJS.ErrnoException, stderr: string): SandboxUnavailableError {
  if (error.code === "ENOENT")
    return new SandboxUnavailableError(
      "not_installed",
      `bubblewrap (${bwrap}) is not installed: install it (Debian/Ubuntu: apt-get install bubblewrap) ` +
        "or use a LocalWorkspace to run tools on the host",
    );
  const detail = stderr.trim() || error.message;
  return new SandboxUnavailableError(
    "cannot_start",
    `bubblewrap cannot create a sandbox here: ${detail} (it needs user namespaces or root; in a container, ` +
      "run it with --privileged or allow unprivileged user namespaces)",
  );
}
