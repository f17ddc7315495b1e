export { BubblewrapRunner } from "./bubblewrap-runner.js";
export { SandboxUnavailableError, type SandboxUnavailableReason, WorkspacePathError } from "./errors.js";
export { LocalWorkspace, type LocalWorkspaceOptions } from "./local-workspace.js";
export {
  DEFAULT_ENV_ALLOW_LIST,
  DEFAULT_HIDDEN_DIRECTORIES,
  DEFAULT_HIDDEN_FILES,
  DEFAULT_SYSTEM_PATHS,
  HOST_SECRETS,
  type ResolvedSandboxPolicy,
  resolveSandboxPolicy,
  type SandboxPolicy,
} from "./sandbox-policy.js";
export { SandboxWorkspace, type SandboxWorkspaceOptions } from "./sandbox-workspace.js";
export type {
  ExecOptions,
  ExecResult,
  Workspace,
  WorkspaceAgentBase,
  WorkspaceAgentOptions,
} from "./workspace.js";
export { WorkspaceFileView } from "./workspace-file-view.js";
export {
  type ListOptions,
  listWorkspaceFiles,
  readWorkspaceFile,
  relativeToRoot,
  resolveInRoot,
  type WorkspaceEntry,
  writeWorkspaceFile,
} from "./workspace-files.js";
