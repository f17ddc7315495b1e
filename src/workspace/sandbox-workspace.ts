import { mkdirSync, realpathSync } from "node:fs";
import { isAbsolute } from "node:path";
import { BubblewrapRunner } from "./bubblewrap-runner.js";
import { LocalWorkspace, type LocalWorkspaceOptions } from "./local-workspace.js";
import type { SandboxPolicy } from "./sandbox-policy.js";

export interface SandboxWorkspaceOptions extends LocalWorkspaceOptions {
  policy?: SandboxPolicy;
}

/**
 * A workspace whose commands each run in a bubblewrap sandbox (see SandboxPolicy): the root is the
 * only writable host directory, nothing else of the host but the system is visible, no network unless
 * allowed, a scrubbed environment, per-process CPU / memory / file-size limits, a process limit and a
 * wall-clock timeout that kills the whole tree. Defense in depth under the permission engine, which
 * still decides every call first. Read, Write, Edit, Glob and Grep run in this process through the
 * workspace's file view: the root only, and nothing the sandbox hides.
 *
 * There is no way to make one that runs on the host: `new SandboxWorkspace({ root })` builds its own
 * BubblewrapRunner (any other runner is refused), and the first command checks that the sandbox
 * starts, throwing SandboxUnavailableError when it cannot. `open` checks before returning.
 */
export class SandboxWorkspace extends LocalWorkspace {
  override readonly kind = "sandbox";
  declare readonly runner: BubblewrapRunner;

  constructor(options: SandboxWorkspaceOptions, runner?: BubblewrapRunner) {
    super(options, sandboxRunnerFor(options, runner));
  }

  /** Creates the root when missing, checks that a sandbox starts here, and returns the workspace. */
  static async open(options: SandboxWorkspaceOptions): Promise<SandboxWorkspace> {
    const workspace = new SandboxWorkspace(options);
    await workspace.runner.ready();
    return workspace;
  }

  override instructions(): string {
    const network = this.runner.policy.network ? "" : " There is no network access.";
    return `${super.instructions()}\nCommands run in a sandbox: only the workspace is writable and files outside it are not visible.${network}`;
  }
}

/** The runner given (a BubblewrapRunner over this root) or a new one; anything else is refused. */
function sandboxRunnerFor(options: SandboxWorkspaceOptions, runner: unknown): BubblewrapRunner {
  if (!isAbsolute(options.root))
    throw new TypeError(`workspace root must be an absolute path, got "${options.root}"`);
  mkdirSync(options.root, { recursive: true });
  const root = realpathSync(options.root);
  if (runner === undefined) return new BubblewrapRunner(root, options.policy);
  if (!(runner instanceof BubblewrapRunner))
    throw new TypeError(
      "SandboxWorkspace: the runner must be a BubblewrapRunner (commands never run on the host)",
    );
  if (runner.root !== root)
    throw new TypeError(
      `SandboxWorkspace: the runner's root ${runner.root} is not the workspace root ${root}`,
    );
  return runner;
}
