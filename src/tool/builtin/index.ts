import type { Tool } from "../types.js";
import { type BashToolOptions, bashTool } from "./bash.js";
import { editTool } from "./edit.js";
import type { FileViewSource } from "./file-view.js";
import { type GlobToolOptions, globTool } from "./glob.js";
import { type GrepToolOptions, grepTool } from "./grep.js";
import { type ReadToolOptions, readTool } from "./read.js";
import { writeTool } from "./write.js";

export { matchCommandRule } from "./bash/command-rule.js";
export { type BashToolOptions, bashTool } from "./bash.js";
export { analyzeBash, type BashAnalysis, type ShellCommand } from "./bash-analysis.js";
export { BASH_COMMAND_ENVIRONMENT, withCommandEnvironment } from "./bash-environment.js";
export { type EditToolOptions, editTool } from "./edit.js";
export {
  type FileListOptions,
  type FileRead,
  type FileView,
  type FileViewSource,
  fileViewOf,
  hostFileView,
  readHandle,
} from "./file-view.js";
export { type GlobToolOptions, globTool } from "./glob.js";
export { type GrepToolOptions, grepTool } from "./grep.js";
export { type ReadToolOptions, readTool } from "./read.js";
export { READ_FILES_KEY, type ReadRecord } from "./read-cache.js";
export {
  type LocalProcessRunnerOptions,
  localProcessRunner,
  type ProgramLaunch,
  runProgram,
} from "./run-process.js";
export { type WriteToolOptions, writeTool } from "./write.js";

export interface BuiltinToolOptions {
  bash?: BashToolOptions;
  read?: ReadToolOptions;
  glob?: GlobToolOptions;
  grep?: GrepToolOptions;
  /**
   * Where Read, Write, Edit, Glob and Grep reach files (default the host). A workspace passes its
   * confined view: the root only, no link escapes, its sandbox's hidden paths hidden.
   */
  files?: FileViewSource;
}

/** The names of the built-in tools. */
export const BUILTIN_TOOL_NAMES = ["Bash", "Read", "Write", "Edit", "Glob", "Grep"] as const;

/** Bash, Read, Write, Edit, Glob and Grep. */
export function builtinTools(options: BuiltinToolOptions = {}): Tool[] {
  const files = options.files === undefined ? {} : { files: options.files };
  return [
    bashTool(options.bash),
    readTool({ ...options.read, ...files }),
    writeTool(files),
    editTool(files),
    globTool({ ...options.glob, ...files }),
    grepTool({ ...options.grep, ...files }),
  ];
}
