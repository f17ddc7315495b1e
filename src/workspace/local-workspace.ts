import { mkdirSync, realpathSync } from "node:fs";
import { isAbsolute } from "node:path";
import { type CredentialLists, DEFAULT_CREDENTIAL_LISTS } from "../permission/index.js";
import { type BuiltinToolOptions, builtinTools, localProcessRunner } from "../tool/builtin/index.js";
import {
  loadSkills,
  McpClient,
  type McpServerConfig,
  type ProcessRunner,
  registerMcpClient,
  type Skill,
  Toolkit,
} from "../tool/index.js";
import { BubblewrapRunner } from "./bubblewrap-runner.js";
import { WorkspacePathError } from "./errors.js";
import type {
  ExecOptions,
  ExecResult,
  Workspace,
  WorkspaceAgentBase,
  WorkspaceAgentOptions,
} from "./workspace.js";
import { WorkspaceFileView } from "./workspace-file-view.js";
import {
  type ListOptions,
  listWorkspaceFiles,
  resolveInRoot,
  type WorkspaceEntry,
} from "./workspace-files.js";

export interface LocalWorkspaceOptions {
  /** The root directory (created when missing). */
  root: string;
  /** MCP servers whose tools join the toolkit (connected on the first `toolkit()`, closed by `close()`). */
  mcpServers?: McpServerConfig[];
  /** Folders of skills (each skill a folder with a SKILL.md). */
  skillDirectories?: string[];
  /** More text for the system prompt. */
  instructions?: string;
  /**
   * Options of the built-in tools (a `bash.runner` here is replaced by the workspace's runner, and
   * `files` by the workspace's file view).
   */
  tools?: BuiltinToolOptions;
}

/**
 * The host as a workspace. Commands run on the host with `bash -c` in the root; the permission
 * engine (working directory = root) is the only wall for them. The file tools, `readFile`,
 * `writeFile` and `listFiles` go through the workspace's file view (`files`): the root only, no
 * symlink or hard-link escape, and the credential paths hidden (the same list a sandbox hides).
 */
export class LocalWorkspace implements Workspace {
  readonly kind: string = "local";
  readonly root: string;
  readonly runner: ProcessRunner;
  /** What the file tools see: the root, without the hidden paths. */
  readonly files: WorkspaceFileView;
  readonly #options: LocalWorkspaceOptions;
  #toolkit: Promise<Toolkit> | undefined;
  #closed = false;

  constructor(options: LocalWorkspaceOptions, runner?: ProcessRunner) {
    if (!isAbsolute(options.root))
      throw new TypeError(`workspace root must be an absolute path, got "${options.root}"`);
    mkdirSync(options.root, { recursive: true });
    this.root = realpathSync(options.root);
    this.#options = options;
    this.runner = runner ?? localProcessRunner(options.tools?.bash);
    this.files = new WorkspaceFileView(this.root, hiddenListsOf(this.runner));
  }

  toolkit(): Promise<Toolkit> {
    this.#assertOpen();
    this.#toolkit ??= this.#buildToolkit();
    return this.#toolkit;
  }

  async #buildToolkit(): Promise<Toolkit> {
    const tools = this.#options.tools ?? {};
    const toolkit = new Toolkit(
      builtinTools({ ...tools, files: this.files, bash: { ...tools.bash, runner: this.runner } }),
    );
    try {
      for (const server of this.#options.mcpServers ?? [])
        await registerMcpClient(toolkit, new McpClient(server));
    } catch (error) {
      await toolkit.close();
      throw error;
    }
    return toolkit;
  }

  async skills(): Promise<Skill[]> {
    const dirs = this.#options.skillDirectories ?? [];
    return dirs.length > 0 ? loadSkills(dirs) : [];
  }

  instructions(): string {
    const lines = [
      `Your workspace is ${this.root}: the working directory of your tools. Keep the files you create there.`,
    ];
    if (this.#options.instructions) lines.push(this.#options.instructions);
    return lines.join("\n");
  }

  async agentOptions(base: WorkspaceAgentBase = {}): Promise<WorkspaceAgentOptions> {
    return {
      toolkit: await this.toolkit(),
      skills: await this.skills(),
      permission: { ...base.permission, workingDirectories: [this.root] },
      systemPrompt: [base.systemPrompt ?? "", this.instructions()].filter(Boolean).join("\n\n"),
    };
  }

  async exec(command: string, options: ExecOptions = {}): Promise<ExecResult> {
    this.#assertOpen();
    const chunks: string[] = [];
    const stream = this.runner.run({
      command,
      cwd: await resolveInRoot(this.root, options.cwd ?? "."),
      timeoutMs: options.timeoutMs ?? 120_000,
      maxOutputChars: options.maxOutputChars ?? 1_000_000,
      signal: options.signal ?? new AbortController().signal,
    });
    for await (const chunk of stream) chunks.push(chunk);
    return execResult(chunks.join(""));
  }

  async readFile(path: string): Promise<Buffer> {
    this.#assertOpen();
    const absolute = await this.files.resolve(path, this.root);
    return (await this.files.read(absolute).catch(describeFileError(path))).data;
  }

  async writeFile(path: string, data: string | Uint8Array): Promise<string> {
    this.#assertOpen();
    const absolute = await this.files.resolve(path, this.root);
    await this.files.write(absolute, data).catch(describeFileError(path));
    return absolute;
  }

  listFiles(dir?: string, options?: ListOptions): Promise<WorkspaceEntry[]> {
    this.#assertOpen();
    return listWorkspaceFiles(this.root, dir, { hidden: this.files.hidden, ...options });
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    const toolkit = await this.#toolkit?.catch(() => undefined);
    await toolkit?.close();
  }

  #assertOpen(): void {
    if (this.#closed) throw new Error(`the workspace ${this.root} is closed`);
  }
}

/** The sandbox's hidden lists for a sandboxed runner, the default credential lists otherwise. */
function hiddenListsOf(runner: ProcessRunner): CredentialLists {
  if (!(runner instanceof BubblewrapRunner)) return DEFAULT_CREDENTIAL_LISTS;
  return { files: runner.policy.hiddenFiles, directories: runner.policy.hiddenDirectories };
}

/** A missing file or a refused one, as a WorkspacePathError naming the path. */
function describeFileError(path: string) {
  return (error: NodeJS.ErrnoException): never => {
    if (error.code === "ENOENT")
      throw new WorkspacePathError(path, `${path} does not exist in the workspace`);
    if (error.code === "ELOOP")
      throw new WorkspacePathError(path, `${path} is a symlink; the workspace does not follow it`);
    throw error;
  };
}

const EXIT_LINE = /\[exit code ([^\]]+)\]$/;
const KILLED_LINE = /\[(timed out after|output limit of) [^\]]*\]$/;

/** Reads how the command ended from the runner's status line (see ProcessRunner). */
function execResult(output: string): ExecResult {
  if (KILLED_LINE.test(output)) return { output, exitCode: null, killed: true };
  const exit = EXIT_LINE.exec(output)?.[1];
  if (exit === undefined)
    return { output: output === "(no output)" ? "" : output, exitCode: 0, killed: false };
  const code = Number(exit);
  return { output, exitCode: Number.isInteger(code) ? code : exit, killed: false };
}
