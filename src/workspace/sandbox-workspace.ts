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
 * still decides every call first. Read, Write, Edit, Glob and Grep run in this process, confined by
 * the permission engine to the root. `open` throws SandboxUnavailableError when bubblewrap cannot run.
 */
export class SandboxWorkspace extends LocalWorkspace {
  override readonly kind = "sandbox";
  declare readonly runner: BubblewrapRunner;

  private constructor(options: SandboxWorkspaceOptions, runner: BubblewrapRunner) {
    super(options, runner);
  }

  /** Creates the root when missing, checks that a sandbox starts here, and returns the workspace. */
  static async open(options: SandboxWorkspaceOptions): Promise<SandboxWorkspace> {
    const probe = new LocalWorkspace({ root: options.root });
    const runner = new BubblewrapRunner(probe.root, options.policy);
    await runner.check();
    return new SandboxWorkspace(options, runner);
  }

  override instructions(): string {
    const network = this.runner.policy.network ? "" : " There is no network access.";
    return `${super.instructions()}\nCommands run in a sandbox: only the workspace is writable and files outside it are not visible.${network}`;
  }
}
