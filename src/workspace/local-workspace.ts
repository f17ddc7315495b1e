import { mkdirSync, realpathSync } from "node:fs";
import { isAbsolute } from "node:path";
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
import type {
  ExecOptions,
  ExecResult,
  Workspace,
  WorkspaceAgentBase,
  WorkspaceAgentOptions,
} from "./workspace.js";
import {
  type ListOptions,
  listWorkspaceFiles,
  readWorkspaceFile,
  resolveInRoot,
  type WorkspaceEntry,
  writeWorkspaceFile,
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
  /** Options of the built-in tools (a `bash.runner` here is replaced by the workspace's runner). */
  tools?: BuiltinToolOptions;
}

/**
 * The host as a workspace: today's behaviour made explicit. Commands run on the host with
 * `bash -c` in the root; the permission engine (working directory = root) is the only wall.
 */
export class LocalWorkspace implements Workspace {
  readonly kind: string = "local";
  readonly root: string;
  readonly runner: ProcessRunner;
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
  }

  toolkit(): Promise<Toolkit> {
    this.#assertOpen();
    this.#toolkit ??= this.#buildToolkit();
    return this.#toolkit;
  }

  async #buildToolkit(): Promise<Toolkit> {
    const tools = this.#options.tools ?? {};
    const toolkit = new Toolkit(builtinTools({ ...tools, bash: { ...tools.bash, runner: this.runner } }));
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

  readFile(path: string): Promise<Buffer> {
    this.#assertOpen();
    return readWorkspaceFile(this.root, path);
  }

  writeFile(path: string, data: string | Uint8Array): Promise<string> {
    this.#assertOpen();
    return writeWorkspaceFile(this.root, path, data);
  }

  listFiles(dir?: string, options?: ListOptions): Promise<WorkspaceEntry[]> {
    this.#assertOpen();
    return listWorkspaceFiles(this.root, dir, options);
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
