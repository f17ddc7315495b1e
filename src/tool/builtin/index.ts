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

/**
 * The built-in tools, in the order `builtinTools` returns them: each one's name and how it is made
 * from the options (`files`: the view the file tools reach files through). A new built-in tool is
 * one entry here (and its export above).
 */
const BUILTIN_TOOLS = [
  { name: "Bash", create: (options) => bashTool(options.bash) },
  { name: "Read", create: (options, files) => readTool({ ...options.read, ...files }) },
  { name: "Write", create: (_options, files) => writeTool(files) },
  { name: "Edit", create: (_options, files) => editTool(files) },
  { name: "Glob", create: (options, files) => globTool({ ...options.glob, ...files }) },
  { name: "Grep", create: (options, files) => grepTool({ ...options.grep, ...files }) },
] as const satisfies readonly BuiltinToolEntry[];

interface BuiltinToolEntry {
  name: string;
  create(options: BuiltinToolOptions, files: { files?: FileViewSource }): Tool;
}

type NamesOf<T extends readonly BuiltinToolEntry[]> = { readonly [K in keyof T]: T[K]["name"] };

/** The entries' names as a tuple of literals: `map` keeps order and length, its type only the union. */
const namesOf = <T extends readonly BuiltinToolEntry[]>(entries: T): NamesOf<T> =>
  entries.map((entry) => entry.name) as unknown as NamesOf<T>;

/** The names of the built-in tools. */
export const BUILTIN_TOOL_NAMES = namesOf(BUILTIN_TOOLS);

/** The built-in tools, one of each (BUILTIN_TOOL_NAMES, in that order). */
export function builtinTools(options: BuiltinToolOptions = {}): Tool[] {
  const files = options.files === undefined ? {} : { files: options.files };
  return BUILTIN_TOOLS.map((entry) => entry.create(options, files));
}
