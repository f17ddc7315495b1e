import type { BashAnalysis } from "./bash/analysis-types.js";
import { describeError, SyntaxWalk } from "./bash/syntax-walk.js";

export type { BashAnalysis, ShellCommand } from "./bash/analysis-types.js";

const cache = new Map<string, BashAnalysis>();

/** Analyses a command with a real bash parser (unbash); results are cached per command string. */
export function analyzeBash(command: string): BashAnalysis {
  const cached = cache.get(command);
  if (cached) return cached;
  let analysis: BashAnalysis;
  try {
    analysis = new SyntaxWalk(0).run(command);
  } catch (error) {
    // A failure of the analysis itself never fails open: the command is hidden, deny rules match it.
    analysis = failedAnalysis(command, describeError(error));
  }
  if (cache.size > 200) cache.clear();
  cache.set(command, analysis);
  return analysis;
}

function failedAnalysis(command: string, reason: string): BashAnalysis {
  return {
    commands: [{ words: [command], forms: [[command]], opaque: true }],
    readOnly: false,
    safety: [`the command could not be analysed (${reason})`],
    paths: [],
    globs: [],
    fileEditsOnly: false,
    traversals: [],
    gitDirectories: [],
    gitContentDirectories: [],
    gitContentReads: [],
  };
}
