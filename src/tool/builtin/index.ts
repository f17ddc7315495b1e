import type { Tool } from "../types.js";
import { type BashToolOptions, bashTool } from "./bash.js";
import { editTool } from "./edit.js";
import { type GlobToolOptions, globTool } from "./glob.js";
import { type GrepToolOptions, grepTool } from "./grep.js";
import { type ReadToolOptions, readTool } from "./read.js";
import { writeTool } from "./write.js";

export { matchCommandRule } from "./bash/command-rule.js";
export { type BashToolOptions, bashTool } from "./bash.js";
export { analyzeBash, type BashAnalysis, type ShellCommand } from "./bash-analysis.js";
export { editTool } from "./edit.js";
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
export { writeTool } from "./write.js";

export interface BuiltinToolOptions {
  bash?: BashToolOptions;
  read?: ReadToolOptions;
  glob?: GlobToolOptions;
  grep?: GrepToolOptions;
}

/** Bash, Read, Write, Edit, Glob and Grep. */
export function builtinTools(options: BuiltinToolOptions = {}): Tool[] {
  return [
    bashTool(options.bash),
    readTool(options.read),
    writeTool(),
    editTool(),
    globTool(options.glob),
    grepTool(options.grep),
  ];
}
