import type { GitContentRead } from "./git-content.js";
import type { Traversal } from "./traversals.js";

/** One simple command of a script, as the shell will run it. */
export interface ShellCommand {
  /** Its words after quote removal and brace expansion, the program as written. */
  words: string[];
  /**
   * The forms rules match, outermost first: the program by its base name (`/bin/rm` → `rm`), then
   * each command a wrapper runs (`env X=1 nice rm a` → `env X=1 nice rm a`, `nice rm a`, `rm a`).
   * The last form is the program that really runs.
   */
  forms: string[][];
  /** What runs cannot be read from the text (`$CMD`, `eval "$x"`, `sh < file`): deny rules match it. */
  opaque?: boolean;
  /**
   * Why it may run a program its text does not show (a wrapper form or program runner that is not
   * modelled: `strace x`, `timeout --odd 5 x`, `xargs sh -c`): deny and ask rules match it whatever
   * they name; allow rules match it as written.
   */
  mayRunAnything?: string;
}

/** What a shell command does, as far as a parser can tell without running it. */
export interface BashAnalysis {
  commands: ShellCommand[];
  /** Every program and every option it is given only read; no redirect writes; nothing computed. */
  readOnly: boolean;
  /** Why a person must confirm no matter what allow rules say (control flow, injection, danger). */
  safety: string[];
  /** Paths the script reads or writes, relative to where it starts when relative. */
  paths: string[];
  /** Glob patterns among those paths (unexpanded), relative to where the script starts. */
  globs: string[];
  /** Every command is read-only or a plain file edit (mkdir, cp, mv, rm, sed -i ...) with known paths. */
  fileEditsOnly: boolean;
  /** Recursive reads (`grep -r`, `rg`, `diff -r`, `git grep`): the trees are walked at decision time. */
  traversals: Traversal[];
  /**
   * Where each git command runs, relative to where the script starts: at decision time its
   * repository must be a `.git` directory inside the working directory.
   */
  gitDirectories: string[];
  /**
   * Where each git command that prints tracked files' contents it does not name runs (`git grep`,
   * `git blame`): at decision time every dangerous path the repository tracks is checked as a path it reads.
   */
  gitContentDirectories: string[];
  /**
   * What each git command may print of files' contents from the index or from history (`git diff`,
   * `git show`, `git log -p`), and where it runs: at decision time it must be limited to files by
   * pathspecs, or (the index only) the repository must track no dangerous path; otherwise it asks.
   */
  gitContentReads: (GitContentRead & { directory: string })[];
}

/** What the words of one simple command are, beyond their values. */
export interface WordFacts {
  /** Word values that hold an unquoted glob, with their pattern. */
  globOf: Map<string, string>;
  /** Word values only known at run time. */
  dynamicWords: Set<string>;
  /** Every expansion in the command is a plain `$NAME` of a harmless variable. */
  safeExpansions: boolean;
}

/** Facts for words written into the analysis itself (a start-up file, a sourced script). */
export const LITERAL_WORDS: WordFacts = { globOf: new Map(), dynamicWords: new Set(), safeExpansions: false };
