import { posix } from "node:path";
import { dangerousGlobReason } from "../../../permission/index.js";
import { globRoot } from "../tool-paths.js";
import type { BashAnalysis, ShellCommand, WordFacts } from "./analysis-types.js";
import type { Traversal } from "./traversals.js";

/**
 * What the analysis of one script has found so far: its commands, the reasons a person must
 * confirm, the paths, globs, walks and git directories to check at decision time, and whether it is
 * still read-only or a plain file edit. The syntax walk and the simple-command reader record into it.
 */
export class AnalysisRecord {
  readonly commands: ShellCommand[] = [];
  readonly safety = new Set<string>();
  readonly paths: string[] = [];
  readonly globs: string[] = [];
  readonly traversals: Traversal[] = [];
  readonly gitDirectories: string[] = [];
  readonly gitContentDirectories: string[] = [];
  readonly gitContentReads: BashAnalysis["gitContentReads"] = [];
  /** Glob words of the command being classified that were checked as paths. */
  readonly checkedGlobWords = new Set<string>();
  readOnly = true;
  fileEdits = true;
  /** Where relative paths resolve, as the script `cd`s around; undefined once unknown. */
  cwd: string | undefined = ".";

  /** The analysis: read-only (or file edits only) when nothing said otherwise and there was a command. */
  result(): BashAnalysis {
    const safety = [...this.safety];
    const some = this.commands.length > 0;
    return {
      commands: this.commands,
      readOnly: this.readOnly && safety.length === 0 && some,
      safety,
      paths: this.paths,
      globs: this.globs,
      fileEditsOnly: this.fileEdits && safety.length === 0 && some,
      traversals: this.traversals,
      gitDirectories: this.gitDirectories,
      gitContentDirectories: this.gitContentDirectories,
      gitContentReads: this.gitContentReads,
    };
  }

  flag(reason: string): void {
    this.safety.add(reason);
    this.readOnly = false;
  }

  notReadOnly(): void {
    this.readOnly = false;
  }

  opaque(): void {
    this.readOnly = false;
    this.fileEdits = false;
  }

  hidden(words: string[], reason: string): void {
    this.flag(reason);
    this.opaque();
    this.commands.push({ words, forms: [words], opaque: true });
  }

  /** Records a recursive read, its roots joined to where the script is. */
  traverse(traversal: Traversal | undefined): void {
    if (!traversal) return;
    if (this.cwd === undefined) {
      this.opaque();
      return;
    }
    const cwd = this.cwd;
    this.traversals.push({ ...traversal, roots: traversal.roots.map((root) => joinPath(cwd, root)) });
  }

  addPaths(paths: readonly string[], words: WordFacts): void {
    for (const path of paths) this.addPath(path, words.globOf.get(path));
  }

  addPath(path: string, glob?: string): void {
    // `~root/x`, `~+/x`, `~-/x`: another user's home, $PWD, $OLDPWD, none of them known here.
    if (this.cwd === undefined || /^~[^/]/.test(path)) {
      this.opaque();
      return;
    }
    if (glob === undefined) {
      this.paths.push(joinPath(this.cwd, path));
      return;
    }
    this.checkedGlobWords.add(path);
    const danger = dangerousGlobReason(glob);
    if (danger) this.flag(`${path} is a glob that can reach a sensitive path (${danger})`);
    const scan = globRoot(glob);
    this.paths.push(joinPath(this.cwd, scan));
    this.globs.push(joinPath(this.cwd, glob));
  }
}

/** `path` relative to where the script is (`cwd`), unless it is absolute or `~`. */
export function joinPath(cwd: string | undefined, path: string): string {
  if (cwd === undefined || cwd === "." || path.startsWith("/") || path.startsWith("~")) return path;
  return posix.join(cwd, path);
}
