import { mkdirSync, realpathSync } from "node:fs";
import { mkdir, realpath, rm } from "node:fs/promises";
import { isAbsolute, join, relative, resolve, sep } from "node:path";
import type { Middleware } from "../../agent/index.js";
import { baseDirectory, type CredentialLists, DEFAULT_CREDENTIAL_LISTS } from "../../permission/index.js";
import type { FileViewSource } from "../../tool/builtin/index.js";
import type { ProcessRequest, ProcessRunner } from "../../tool/index.js";
import {
  BubblewrapRunner,
  resolveSandboxPolicy,
  type SandboxPolicy,
  WorkspaceFileView,
} from "../../workspace/index.js";
import type { SessionDirectory, SessionRecord } from "./backend/types.js";

export interface WorkspaceManagerOptions {
  /** Workspaces live in `<dataDir>/workspaces/` (created when missing; kept across restarts). */
  dataDir: string;
  /** One workspace per session (default) or one per user, shared by that user's sessions. */
  scope?: "session" | "user";
  /**
   * Run the agents' commands in a bubblewrap sandbox over the session's workspace (default off here;
   * `startServer` turns it on by default where bubblewrap runs: see openServiceWorkspaces).
   */
  sandbox?: SandboxPolicy | false;
}

/** The session's owner and id: all the manager needs to find a workspace. */
export type WorkspaceOwner = Pick<SessionRecord, "sessionId" | "owner">;

/**
 * Gives each session (or each user) of the service its own workspace directory under a data
 * directory: created on first use, kept across restarts (the path is derived from the ids), removed
 * with the session (session scope). Its middleware points a session's working directory at its
 * workspace before every reply, so the built-in tools read, write and run there; its runner (with
 * `sandbox`) runs every command in a bubblewrap sandbox whose only writable directory is that workspace;
 * its file view (`files()`) keeps the file tools in that workspace, without the paths the sandbox hides.
 */
export class WorkspaceManager {
  readonly base: string;
  readonly scope: "session" | "user";
  readonly #sandbox: SandboxPolicy | false;
  /** The paths hidden from commands (sandbox) and from the file tools (view) alike. */
  readonly hidden: CredentialLists;

  constructor(options: WorkspaceManagerOptions) {
    if (!isAbsolute(options.dataDir))
      throw new TypeError(`WorkspaceManager: dataDir must be an absolute path, got "${options.dataDir}"`);
    const base = join(resolve(options.dataDir), "workspaces");
    mkdirSync(base, { recursive: true });
    this.base = realpathSync(base);
    this.scope = options.scope ?? "session";
    this.#sandbox = options.sandbox ?? false;
    const policy = this.#sandbox === false ? undefined : resolveSandboxPolicy(this.#sandbox);
    this.hidden = policy
      ? { files: policy.hiddenFiles, directories: policy.hiddenDirectories }
      : DEFAULT_CREDENTIAL_LISTS;
  }

  /** Whether commands run in a bubblewrap sandbox. */
  get sandboxed(): boolean {
    return this.#sandbox !== false;
  }

  /** The workspace directory of a session (not created). Ids are prefixed/encoded so none can be `..`. */
  rootOf(record: WorkspaceOwner): string {
    return this.scope === "user"
      ? join(this.base, "users", `u-${Buffer.from(record.owner).toString("base64url")}`)
      : join(this.base, "sessions", `s-${record.sessionId}`);
  }

  /** The workspace directory, created when missing; its real path. */
  async ensure(record: WorkspaceOwner): Promise<string> {
    const root = this.rootOf(record);
    await mkdir(root, { recursive: true });
    return realpath(root);
  }

  /** Deletes a session's workspace (session scope; a user's workspace outlives their sessions). */
  async remove(record: WorkspaceOwner): Promise<void> {
    if (this.scope === "session") await rm(this.rootOf(record), { recursive: true, force: true });
  }

  /**
   * Before every reply, the session's working directory becomes its workspace, and the workspace
   * becomes the session's permission boundary (`PermissionContext.boundary`): the engine denies any
   * call whose paths (the tool's `pathsOf`) leave it, in every mode (bypass too), edited approvals
   * included, so one session's tools cannot reach another's files. Bash is left to the sandbox when
   * there is one (it sees the system read-only and nothing of other sessions).
   */
  middleware(sessions: SessionDirectory): Middleware {
    const manager = this;
    const sandboxedTools = this.#sandbox !== false ? ["Bash"] : undefined;
    return {
      name: "workspace",
      async *onReply(input, ctx, next) {
        const record = await sessions.get(ctx.state.sessionId);
        const root = await manager.ensure(record ?? { sessionId: ctx.state.sessionId, owner: "local" });
        const permission = ctx.state.permission;
        permission.workingDirectories = [root];
        permission.boundary = sandboxedTools ? { directory: root, sandboxedTools } : { directory: root };
        yield* next(input);
      },
    };
  }

  /**
   * The runner for the agents' Bash tool: with `sandbox`, each command runs in a bubblewrap sandbox
   * over the workspace that contains its working directory (a command outside every workspace is
   * refused); without, undefined (commands run on the host, in the workspace).
   */
  runner(): ProcessRunner | undefined {
    const policy = this.#sandbox;
    if (policy === false) return undefined;
    const manager = this;
    return {
      kind: "bubblewrap",
      run: async function* (request: ProcessRequest) {
        yield* new BubblewrapRunner(manager.#workspaceContaining(request.cwd), policy).run(request);
      },
    };
  }

  /**
   * The file tools' view for a call: the workspace that holds the call's working directory (a call
   * outside every workspace is refused), with the hidden paths of the sandbox.
   */
  files(): FileViewSource {
    return (ctx) =>
      new WorkspaceFileView(this.#workspaceContaining(baseDirectory(ctx.permission)), this.hidden);
  }

  /** Checks once that the sandbox (when configured) can run here; throws SandboxUnavailableError. */
  async check(): Promise<void> {
    if (this.#sandbox === false) return;
    const probe = await this.ensure({ sessionId: "_sandbox-check", owner: "_sandbox-check" });
    try {
      await new BubblewrapRunner(probe, this.#sandbox).ready();
    } finally {
      await rm(this.rootOf({ sessionId: "_sandbox-check", owner: "_sandbox-check" }), {
        recursive: true,
        force: true,
      });
    }
  }

  #workspaceContaining(cwd: string): string {
    const parts = relative(this.base, cwd).split(sep);
    if (parts.length < 2 || parts[0] === ".." || isAbsolute(relative(this.base, cwd)) || !parts[1])
      throw new Error(`commands may only run inside a session workspace under ${this.base}, not in ${cwd}`);
    return join(this.base, parts[0]!, parts[1]);
  }
}
