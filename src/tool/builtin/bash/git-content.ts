import { lstatSync } from "node:fs";
import { resolve } from "node:path";
import type { OptionReading } from "./options.js";

/**
 * What a reading git command may print of files' contents, beyond the paths it names. `tracked`:
 * only what the index lists (plain `git diff`: the work tree against the index). `history`: what
 * commits hold (`git show`, `git log -p`, `git diff HEAD~1`, `git status -v`), where a secret
 * committed once and deleted since stays for good. Either is safe when pathspecs limit it to files
 * that are not dangerous; otherwise `tracked` is checked against the index and `history` asks.
 */
export interface GitContentRead {
  subcommand: string;
  kind: "tracked" | "history";
  /**
   * Operands before `--` other than `rev:path`: each a revision or, when it exists in the work tree
   * at decision time, a pathspec (git takes it so, and refuses one that is both).
   */
  operands: string[];
  /** Pathspecs after `--`. */
  pathspecs: string[];
  /** A revision prints itself when it names a blob (`git show`, `git cat-file`): each must be a commit. */
  objects: boolean;
  /** Why no pathspec can limit what it prints (`--follow`, `-L`, a glob pathspec), if none can. */
  unlimited?: string;
}

/**
 * Options of `log`, `diff` and `show` known to print nothing of files' contents: formatting,
 * commit limiting, the summaries that replace the patch, and ones that only tune how a diff is
 * computed. Any other option (`-p`, `-U3`, `--word-diff`, `--check`, `-S`, `--submodule`...) may.
 */
const NO_CONTENT = new Set(
  (
    "--oneline --pretty --format --graph --decorate --no-decorate --abbrev-commit --no-abbrev --abbrev " +
    "--date --source --left-right --boundary --reverse --topo-order --date-order --no-walk --first-parent " +
    "--merges --no-merges --min-parents --max-parents --all --remotes --tags --skip --max-count -n --since " +
    "--until --after --before --author --committer --grep --all-match --invert-grep --regexp-ignore-case " +
    "-i -E -F --extended-regexp --fixed-strings --basic-regexp --cherry-pick --cherry-mark --left-only " +
    "--right-only --encoding --no-color --color -z --follow --full-diff --stdin " +
    "--stat --shortstat --numstat --name-only --name-status --summary --raw --dirstat --compact-summary " +
    "--no-patch -s --quiet -q --exit-code " +
    "-M --find-renames -C --find-copies --no-renames --diff-filter --relative -R -w -b -r -t -D -l " +
    "--ignore-all-space --ignore-space-change --ignore-blank-lines --ignore-submodules --no-ext-diff " +
    "--no-textconv --full-index --minimal --patience --histogram --text -a --cached --staged"
  ).split(" "),
);
/** The summaries that replace `diff`'s and `show`'s default patch. */
const REPLACES_PATCH = new Set(
  "--stat --shortstat --numstat --name-only --name-status --summary --raw --dirstat --compact-summary --no-patch -s --quiet --exit-code".split(
    " ",
  ),
);
/** Options after which pathspecs no longer bound the output (renames followed, whole commits shown). */
const WIDENS = ["--follow", "--full-diff", "-L"];
/** Subcommands that print what `log` prints (patches only when asked for; shortlog never does). */
const LOG_LIKE = new Set(["log", "whatchanged", "reflog"]);

/**
 * What `git <sub> <rest>` may print of contents, read with `reading`; undefined when nothing
 * (`status`, `log --oneline`, `show --stat HEAD:x`...). `globals` are the options before the
 * subcommand (`--icase-pathspecs` makes a pathspec match names other than itself).
 */
export function gitContentRead(
  sub: string,
  rest: readonly string[],
  reading: OptionReading,
  globals: readonly string[],
): GitContentRead | undefined {
  const seen = [...reading.seen];
  const dashes = rest.indexOf("--");
  const pathspecs = dashes === -1 ? [] : rest.slice(dashes + 1);
  const before =
    dashes === -1 ? reading.operands : reading.operands.slice(0, reading.operands.length - pathspecs.length);
  const operands = before.filter((operand) => !operand.includes(":"));
  const widened = seen.find((option) => WIDENS.includes(option));
  const glob = pathspecs.find((spec) => /^:|[*?[]/.test(spec));
  const unlimited = widened
    ? `${widened} shows files beyond the pathspecs`
    : globals.some((option) => /^--(icase|glob)-pathspecs$/.test(option))
      ? `${globals.join(" ")} makes a pathspec match other names`
      : glob === undefined
        ? undefined
        : `the pathspec ${glob} may match any file`;
  const read = (kind: GitContentRead["kind"], objects: boolean, ops = operands): GitContentRead => {
    const out: GitContentRead = { subcommand: sub, kind, operands: ops, pathspecs, objects };
    if (unlimited !== undefined) out.unlimited = unlimited;
    return out;
  };
  const printsPatch = seen.some((option) => !NO_CONTENT.has(option));
  const replaced = seen.some((option) => REPLACES_PATCH.has(option));
  switch (sub) {
    case "status":
      // `-v` adds the staged diff (HEAD against the index), `-vv` the unstaged one too.
      return reading.seen.has("-v") || reading.seen.has("--verbose") ? read("history", false) : undefined;
    case "diff": {
      if (reading.seen.has("--no-index")) return undefined;
      if (replaced && !printsPatch) return undefined;
      const cached = reading.seen.has("--cached") || reading.seen.has("--staged");
      // `--submodule=diff` prints the files of embedded repositories, which the index does not list.
      const embedded = reading.seen.has("--submodule");
      // Any operand before `--` may be a revision; whether it is shows at decision time.
      return read(cached || embedded ? "history" : "tracked", false);
    }
    case "show": {
      // `git show HEAD:a.txt` prints that file (its path is checked); a revision prints its commit.
      if (before.length > 0 && operands.length === 0) return undefined;
      const summary = replaced && !printsPatch;
      return summary && operands.every(isCommitExpression) ? undefined : read("history", true);
    }
    case "cat-file": {
      if (!reading.seen.has("-p") && !operands.some((word) => OBJECT_TYPES.has(word))) return undefined;
      const objects = operands.filter((word) => !OBJECT_TYPES.has(word));
      return objects.every(isCommitExpression) ? undefined : read("history", true, objects);
    }
    default:
      if (!LOG_LIKE.has(sub) || !printsPatch) return undefined;
      return read("history", false, sub === "reflog" ? operands.filter((word) => word !== "show") : operands);
  }
}

const OBJECT_TYPES = new Set(["blob", "tree", "commit", "tag"]);

/**
 * Whether no pathspec can limit `read`, whatever the disk holds: none after `--`, and every operand
 * a revision (`HEAD`, `HEAD~1`: git refuses one that is also a file's name), so it prints from
 * history unbounded (`git show HEAD`, `git log -p`, `git diff HEAD~1`). Known before decision time.
 */
export function isUnboundedHistory(read: GitContentRead): boolean {
  if (read.pathspecs.length > 0 || !read.operands.every(isCommitExpression)) return false;
  return read.kind === "history" || read.operands.length > 0;
}

/**
 * A revision that can only name a commit (or a tree), never a blob: `HEAD`, `@`, anything followed
 * by `~N`, `^N`, `^{commit}`, `^{tree}`, `^{/text}`, `^!`, `^@`, `^-`, a reflog entry of HEAD, or a
 * range. A bare name or hash may be a tag of a file's contents.
 */
export function isCommitExpression(revision: string): boolean {
  if (revision.includes("..") || revision.startsWith("^")) return true;
  if (/^(HEAD|@)(@\{\d+\})?$/.test(revision)) return true;
  return /(~\d*|\^\d*|\^\{(commit|tree|\/[^}]*)\}|\^[!@-]\d*)$/.test(revision);
}

/**
 * At decision time: why `read` may print a file the check cannot see, or undefined when it cannot
 * (`tracked: true` when only the index's files are left to check). `directory` is where git runs.
 */
export function gitContentConcern(
  read: GitContentRead,
  directory: string,
): { reason: string } | { tracked: boolean } {
  const revisions: string[] = [];
  const pathspecs = [...read.pathspecs];
  for (const operand of read.operands)
    (exists(resolve(directory, operand)) ? pathspecs : revisions).push(operand);
  const blob = read.objects ? revisions.find((revision) => !isCommitExpression(revision)) : undefined;
  if (blob !== undefined)
    return {
      reason:
        `git ${read.subcommand} ${blob}: ${blob} may name a file's contents in history (a blob or a tag of one), ` +
        "which may be a secret; a revision such as HEAD~1 or a path (rev:path) is checked",
    };
  // A directory's history may hold a secret no file under it holds now.
  const directoryPathspec = pathspecs.find((spec) => !isFileOrLink(resolve(directory, spec)));
  const limited = pathspecs.length > 0 && read.unlimited === undefined && directoryPathspec === undefined;
  // The work tree against the index: the index's own list is checked unless files limit it.
  if (read.kind === "tracked" && revisions.length === 0) return { tracked: !limited };
  if (pathspecs.length === 0)
    return {
      reason:
        `git ${read.subcommand} prints files from history, where a secret committed once (and deleted ` +
        "since) stays: limit it to files (-- path) to run it without asking",
    };
  if (read.unlimited !== undefined) return { reason: `git ${read.subcommand}: ${read.unlimited}` };
  if (directoryPathspec !== undefined)
    return {
      reason:
        `git ${read.subcommand} -- ${directoryPathspec}: ${directoryPathspec} is not a file, and what it held ` +
        "in history (a secret deleted since) cannot be checked",
    };
  return { tracked: false };
}

function exists(path: string): boolean {
  try {
    lstatSync(path);
    return true;
  } catch {
    return false;
  }
}

function isFileOrLink(path: string): boolean {
  try {
    const stats = lstatSync(path);
    return stats.isFile() || stats.isSymbolicLink();
  } catch {
    return false;
  }
}
