import type { PermissionContext } from "../permission/index.js";
import type { ProcessRunner, Skill, Toolkit } from "../tool/index.js";
import type { ListOptions, WorkspaceEntry } from "./workspace-files.js";

/** What `Workspace.exec` gives back: the combined output and how the command ended. */
export interface ExecResult {
  /** stdout and stderr as they came, with the runner's status line (`[exit code 2]`, `[timed out ...]`). */
  output: string;
  /** 0 on success; the code (or signal name) otherwise; null when the command was killed by a limit. */
  exitCode: number | string | null;
  /** The wall-clock timeout or the output limit killed the command. */
  killed: boolean;
}

export interface ExecOptions {
  /** Directory relative to the root (default the root). */
  cwd?: string;
  /** Default 120 s. */
  timeoutMs?: number;
  /** Default 1,000,000 characters. */
  maxOutputChars?: number;
  signal?: AbortSignal;
}

/** What `agentOptions` gives, to spread into `new Agent({ ... })`. */
export interface WorkspaceAgentOptions {
  toolkit: Toolkit;
  skills: Skill[];
  permission: Partial<PermissionContext>;
  systemPrompt: string;
}

/** Options for `agentOptions`: what the workspace adds to. */
export interface WorkspaceAgentBase {
  /** The agent's own prompt; the workspace's instructions follow it. */
  systemPrompt?: string;
  /** Mode and rules; the working directories are the workspace root. */
  permission?: Partial<PermissionContext>;
}

/**
 * Where an agent's tools run: a root directory, the built-in tools bound to it (every command through
 * `runner`), its MCP servers and skills, and instructions for the system prompt. Implementations:
 * LocalWorkspace (the host), SandboxWorkspace (bubblewrap); docs/workspaces.md maps Docker and E2B.
 * Contract: every path argument is relative to `root` (or absolute inside it) and a path that leaves
 * the root throws WorkspacePathError; `exec` runs through `runner`, never elsewhere; after `close()`
 * the MCP clients are closed and nothing may be called.
 */
export interface Workspace {
  /** `local`, `sandbox`, ... */
  readonly kind: string;
  /** Absolute path of the root on the machine that runs the tools. */
  readonly root: string;
  readonly runner: ProcessRunner;
  /** Bash, Read, Write, Edit, Glob, Grep (commands through `runner`) and the MCP servers' tools. */
  toolkit(): Promise<Toolkit>;
  skills(): Promise<Skill[]>;
  /** Added to the system prompt: where the workspace is and what holds there. */
  instructions(): string;
  /** toolkit, skills, permission (working directory = root) and system prompt, to spread into `new Agent`. */
  agentOptions(base?: WorkspaceAgentBase): Promise<WorkspaceAgentOptions>;
  exec(command: string, options?: ExecOptions): Promise<ExecResult>;
  readFile(path: string): Promise<Buffer>;
  /** Creates missing directories; returns the absolute path written. */
  writeFile(path: string, data: string | Uint8Array): Promise<string>;
  listFiles(dir?: string, options?: ListOptions): Promise<WorkspaceEntry[]>;
  close(): Promise<void>;
}
