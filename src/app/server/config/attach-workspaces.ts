import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { type BashToolOptions, BUILTIN_TOOL_NAMES, builtinTools } from "../../../tool/builtin/index.js";
import { Toolkit } from "../../../tool/index.js";
import { SandboxUnavailableError } from "../../../workspace/index.js";
import type { SessionDirectory } from "../backend/types.js";
import type { ServiceAgentOptions } from "../runtime/service-runtime.js";
import { WorkspaceManager, type WorkspaceManagerOptions } from "../workspace-manager.js";
import type { ServiceConfig } from "./service-config.js";

/** The data directory workspaces default to when the config names none. */
export const DEFAULT_WORKSPACE_DATA_DIR = ".agentscope";

/**
 * The manager's options from the config file's `workspaces` (dataDir resolved, `sandbox: true` =
 * defaults). `sandbox` left out stays undefined: the caller decides (openServiceWorkspaces probes).
 */
export function workspaceOptionsOf(
  config: ServiceConfig["workspaces"],
  dataDir = DEFAULT_WORKSPACE_DATA_DIR,
): WorkspaceManagerOptions {
  const options: WorkspaceManagerOptions = { dataDir: resolve(config?.dataDir ?? dataDir) };
  if (config?.scope) options.scope = config.scope;
  if (config?.sandbox !== undefined) options.sandbox = config.sandbox === true ? {} : config.sandbox;
  return options;
}

/** The workspaces of a running service (or chat), and what to say about them at start. */
export interface ServiceWorkspaces {
  manager: WorkspaceManager;
  /** The start-up line: what keeps the tools in, e.g. "tools contained: bubblewrap sandbox per session". */
  containment: string;
  /** Set when the tools are not contained: one line saying what is not and how to fix it. */
  warning?: string;
  /** Removes the data directory when it was a temporary one (memory store). */
  close(): Promise<void>;
}

export interface OpenWorkspacesOptions {
  /** The config's `workspaces` section (may be absent: workspaces are on by default). */
  config: ServiceConfig["workspaces"];
  /** Explicit manager options (a program's) instead of the config's; `sandbox` left out is probed the same way. */
  override?: WorkspaceManagerOptions;
  /** The store URL: a sqlite store's directory is the default data directory, memory a temp one. */
  storeUrl: string;
}

/**
 * Opens the service's workspaces. By default (no `sandbox` in the config) every session's commands
 * run in a bubblewrap sandbox when one starts here; when none can, the service starts anyway with a
 * warning saying so and how to install bubblewrap. `sandbox: true` or a policy requires it (throws
 * SandboxUnavailableError); `sandbox: false` runs commands on the host, in the workspace.
 */
export async function openServiceWorkspaces(options: OpenWorkspacesOptions): Promise<ServiceWorkspaces> {
  const temporary = options.override || options.config?.dataDir ? undefined : await temporaryDataDir(options);
  const managerOptions =
    options.override ?? workspaceOptionsOf(options.config, temporary ?? dataDirOf(options.storeUrl));
  const close = async () => {
    if (temporary) await rm(temporary, { recursive: true, force: true });
  };
  const scope = `per ${managerOptions.scope ?? "session"}`;
  try {
    if (managerOptions.sandbox !== undefined) {
      const manager = new WorkspaceManager(managerOptions);
      await manager.check();
      if (manager.sandboxed)
        return { manager, containment: `tools contained: bubblewrap sandbox ${scope}`, close };
      return {
        manager,
        containment: `tools NOT contained: sandbox is off (sandbox: false); Bash runs on the host in a workspace ${scope}`,
        close,
      };
    }
    const sandboxed = new WorkspaceManager({ ...managerOptions, sandbox: {} });
    try {
      await sandboxed.check();
      return { manager: sandboxed, containment: `tools contained: bubblewrap sandbox ${scope}`, close };
    } catch (error) {
      if (!SandboxUnavailableError.isInstance(error)) throw error;
      return {
        manager: new WorkspaceManager({ ...managerOptions, sandbox: false }),
        containment: `tools NOT contained: Bash runs on the host in a workspace ${scope}`,
        warning:
          `the tools are not sandboxed: ${error.message}. Bash commands run on the host with this ` +
          "process's rights (the file tools stay in each workspace). Install bubblewrap " +
          "(apt-get install bubblewrap) or run agentscope in Docker/Podman (docs/workspaces.md); " +
          "set workspaces.sandbox: false to silence this",
        close,
      };
    }
  } catch (error) {
    await close();
    throw error;
  }
}

/** A sqlite store's directory; the working directory's .agentscope otherwise. */
function dataDirOf(storeUrl: string): string {
  if (storeUrl.startsWith("sqlite:")) {
    const file = storeUrl.slice("sqlite:".length).replace(/^\/\/(?=\/)/, "");
    if (file !== "" && file !== ":memory:") return dirname(resolve(file));
  }
  return DEFAULT_WORKSPACE_DATA_DIR;
}

/** The memory store forgets its sessions at exit: their workspaces go in a temporary directory. */
async function temporaryDataDir(options: OpenWorkspacesOptions): Promise<string | undefined> {
  if (!options.storeUrl.startsWith("memory:")) return undefined;
  return mkdtemp(join(tmpdir(), "agentscope-workspaces-"));
}

/**
 * Agents that work in their session's workspace: the manager's middleware sets each session's
 * working directory; the built-in file tools are replaced by ones that go through the workspace's
 * file view (the root only, the sandbox's hidden paths hidden) and, with a sandbox, Bash by one whose
 * commands run in it.
 */
export function attachWorkspaces(
  agents: ServiceAgentOptions[],
  manager: WorkspaceManager,
  sessions: SessionDirectory,
  bash: BashToolOptions = {},
): ServiceAgentOptions[] {
  const middleware = manager.middleware(sessions);
  const runner = manager.runner();
  const contained = new Map(
    builtinTools({ files: manager.files(), bash: runner ? { ...bash, runner } : bash }).map(
      (tool) => [tool.name, tool] as const,
    ),
  );
  return agents.map((agent) => {
    const attached: ServiceAgentOptions = {
      ...agent,
      middlewares: [middleware, ...(agent.middlewares ?? [])],
    };
    const toolkit = agent.toolkit instanceof Toolkit ? agent.toolkit : new Toolkit(agent.toolkit ?? []);
    for (const name of BUILTIN_TOOL_NAMES) {
      if (!toolkit.get(name) || (name === "Bash" && !runner)) continue;
      toolkit.remove(name);
      toolkit.register(contained.get(name)!);
    }
    attached.toolkit = toolkit;
    return attached;
  });
}
