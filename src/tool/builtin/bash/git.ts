import { type GitContentRead, gitContentRead, isUnboundedHistory } from "./git-content.js";
import { compileSpec, readOptions } from "./options.js";

/** What the Bash analysis learns about one git command. */
export interface GitVerdict {
  readOnly: boolean;
  /** Why a person must confirm (an option that runs a program). */
  unsafe?: string;
  /** Paths it reads (`-C dir`, `--no-index` files, `rev:path` and pathspecs). */
  paths: string[];
  /** The subcommand, when one was read. */
  subcommand?: string;
  /** For `git grep`: the trees or paths it searches (none: the whole directory it runs in). */
  searched: string[];
  /** It prints tracked files' contents it does not name (`grep`, `blame`): the index is checked. */
  printsContent?: boolean;
  /** What it may print of files' contents from the index or from history (`diff`, `show`, `log -p`). */
  content?: GitContentRead;
  /**
   * It may run a program its text does not show as a command (`-c alias.x='!rm a'`, `-c
   * core.fsmonitor=...`, an alias or a `git-x` on PATH), and why: deny rules match it whatever they
   * name.
   */
  runs?: string;
}

/**
 * git's own subcommands (`git --list-cmds=builtins`, less the helpers). Any other word is an alias
 * from a config file or a `git-<word>` program on PATH: what runs cannot be read from the text.
 */
const BUILTINS = new Set(
  (
    "add am annotate apply archive bisect blame branch bugreport bundle cat-file check-attr " +
    "check-ignore check-mailmap check-ref-format checkout checkout-index cherry cherry-pick clean clone " +
    "column commit commit-graph commit-tree config count-objects credential describe diagnose diff " +
    "diff-files diff-index diff-tree difftool fast-export fast-import fetch fetch-pack fmt-merge-msg " +
    "for-each-ref for-each-repo format-patch fsck gc get-tar-commit-id grep hash-object help hook " +
    "index-pack init interpret-trailers log ls-files ls-remote ls-tree mailinfo mailsplit maintenance " +
    "merge merge-base merge-file merge-index merge-tree mktag mktree multi-pack-index mv name-rev notes " +
    "pack-objects pack-refs patch-id prune pull push range-diff read-tree rebase reflog remote repack " +
    "replace rerere reset restore rev-list rev-parse revert rm shortlog show show-branch show-index " +
    "show-ref sparse-checkout stage stash status stripspace submodule switch symbolic-ref tag " +
    "unpack-objects update-index update-ref var verify-commit verify-pack verify-tag version " +
    "whatchanged worktree write-tree"
  ).split(" "),
);

/** Subcommands that print the contents of tracked files they do not name (see also git-content.ts). */
const PRINTS_CONTENT = new Set(["grep", "blame"]);

/** Global options that make git run a program chosen on the command line (and their prefixes). */
const UNSAFE_GLOBAL = ["--config-env", "--exec-path", "--upload-pack", "--receive-pack"];
/**
 * Global options that change nothing about which repository or config git reads. Any other global
 * option (`-C`, `--git-dir`, `--work-tree`, `--bare`, `--namespace`, ...) picks another repository
 * or config, whose `core.fsmonitor`, hooks and filters run programs: not read-only.
 */
const HARMLESS_GLOBAL = new Set([
  "--no-pager",
  "--paginate",
  "-P",
  "-p",
  "--no-optional-locks",
  "--literal-pathspecs",
  "--glob-pathspecs",
  "--noglob-pathspecs",
  "--icase-pathspecs",
  "--no-replace-objects",
  "--no-advice",
]);

/** Options that run a program or write, in any subcommand. */
const UNSAFE_OPTIONS =
  "-O --open-files-in-pager --ext-diff --output --exec --upload-pack --receive-pack --config-env --pre";

const SHARED_FLAGS =
  "-p -u -s -z -w -b -a -i -v -q -R -M -C -B -D -1 -2 -3 -4 -5 -6 -7 -8 -9 --patch --no-patch --stat " +
  "--shortstat --numstat --name-only --name-status --summary --raw --oneline --graph --all --reverse " +
  "--abbrev-commit --no-abbrev --follow --first-parent --merges --no-merges --topo-order --date-order " +
  "--no-walk --left-right --cherry-pick --boundary --source --cached --staged --no-color --color " +
  "--ignore-all-space --ignore-space-change --ignore-blank-lines --text --exit-code --quiet --check " +
  "--minimal --patience --histogram --no-renames --full-index --binary --no-prefix --compact-summary " +
  "--no-ext-diff --no-textconv --porcelain --short --branch --long --verbose --ahead-behind --show-stash " +
  "--regexp-ignore-case --all-match --invert-grep --decorate --no-decorate --name-rev " +
  "--pretty --format --date --abbrev --relative --word-diff --word-diff-regex --unified --find-renames " +
  "--find-copies --diff-filter --submodule --untracked-files --ignored --dirstat --max-count --since " +
  "--until --after --before --author --committer --grep --min-parents --max-parents --skip --show-current " +
  "--list --remotes --contains --no-contains --merged --no-merged --points-at --sort --heading --break " +
  "-n -l -L -c -h -H -e -E -F -G -P -W -o -r -t -x --line-number --files-with-matches --name-only " +
  "--count --ignore-case --word-regexp --fixed-strings --extended-regexp --perl-regexp --basic-regexp " +
  "--full-name --show-function --function-context --only-matching --column --and --or --not --recursive " +
  "--untracked --no-index --others --modified --deleted --exclude-standard --stage --directory " +
  "--full-tree --name-status --tags --always --dirty --long --get --get-all --get-regexp --show-origin " +
  "--show-scope --local --global --system --includes --batch-check --textconv -S --pickaxe-regex " +
  "--is-inside-work-tree --show-toplevel --abbrev-ref --git-dir --show-prefix --verify --symbolic-full-name " +
  "--count --left-only --right-only --cherry-mark --stdin --ignore-submodules --encoding --ita-invisible-in-index";
const SHARED_VALUED = "-A -B -C -U -m -f -e -n -S -G -L --max-depth --threads --exclude --format --sort";

const SUBCOMMAND = compileSpec({
  flags: SHARED_FLAGS.split(/\s+/)
    .flatMap((flag) => (flag.startsWith("--") ? [flag, `${flag}=`] : [flag]))
    .join(" "),
  valued: SHARED_VALUED,
  unsafe: UNSAFE_OPTIONS,
  numeric: true,
  operands: "paths",
});

/** git subcommands that only read (branch, tag, remote, config and reflog only in listing forms). */
const READ_ONLY = new Set([
  "status",
  "diff",
  "log",
  "show",
  "blame",
  "ls-files",
  "ls-tree",
  "rev-parse",
  "rev-list",
  "describe",
  "shortlog",
  "cat-file",
  "grep",
  "reflog",
  "branch",
  "tag",
  "remote",
  "config",
  "merge-base",
  "name-rev",
  "show-ref",
  "for-each-ref",
  "count-objects",
  "whatchanged",
  "version",
]);
const LISTING_ONLY = new Set(["branch", "tag", "remote", "reflog", "config"]);
const LISTING_OPTIONS = new Set([
  "-a",
  "-r",
  "-v",
  "-vv",
  "-l",
  "--list",
  "--all",
  "--remotes",
  "--verbose",
  "--show-current",
  "--get",
  "--get-all",
  "--get-regexp",
  "--show-origin",
]);

/** Judges `git ...` (args without the program name). */
export function analyzeGit(args: readonly string[]): GitVerdict {
  const paths: string[] = [];
  let index = 0;
  for (; index < args.length; index++) {
    const arg = args[index]!;
    if (!arg.startsWith("-")) break;
    const name = arg.split("=")[0]!;
    if (/^-c/.test(arg) || UNSAFE_GLOBAL.some((unsafe) => name.length > 3 && unsafe.startsWith(name)))
      return {
        readOnly: false,
        unsafe: `git ${arg} can make git run any program`,
        paths,
        searched: [],
        runs: `git ${arg} can make git run any program`,
      };
    if (HARMLESS_GLOBAL.has(arg)) continue;
    // `-C dir`, `--git-dir=dir`, `--work-tree dir`: the paths are checked, and it asks.
    const value = arg.includes("=") ? arg.slice(arg.indexOf("=") + 1) : undefined;
    if (arg === "-C" || /^--(git-dir|work-tree|namespace|super-prefix|attr-source)$/.test(arg))
      paths.push(args[++index] ?? ".");
    else if (value !== undefined) paths.push(value);
    return { readOnly: false, paths, searched: [] };
  }
  if (args[index] === "--version" || args[index] === undefined)
    return { readOnly: index < args.length, paths, searched: [] };
  const sub = args[index]!;
  const rest = args.slice(index + 1);
  if (!BUILTINS.has(sub))
    return {
      readOnly: false,
      paths,
      subcommand: sub,
      searched: [],
      runs: `git ${sub} is not a git command: an alias or a git-${sub} program, which may run anything`,
    };
  const reading = readOptions(rest, SUBCOMMAND);
  if (reading.unsafe) {
    return {
      readOnly: false,
      unsafe: `git ${sub} ${reading.unsafe} runs another program or writes a file`,
      paths,
      searched: [],
    };
  }
  paths.push(...reading.paths, ...reading.operands.flatMap(pathsInOperand));
  const subcommand = sub;
  const printsContent = PRINTS_CONTENT.has(sub);
  const content = gitContentRead(sub, rest, reading, args.slice(0, index));
  // What git grep searches: the trees or paths after the pattern and before `--`, and the pathspecs.
  const explicit = reading.seen.has("-e") || reading.seen.has("-f");
  const dashes = rest.indexOf("--");
  const beforeDashes = dashes === -1 ? rest : rest.slice(0, dashes);
  const operands = reading.operands.filter((operand) => beforeDashes.includes(operand));
  const trees = explicit ? operands : operands.slice(1);
  // Plain pathspecs after `--` are where it searches; a glob or magic one (`*.ts`, `:!x`) may be anywhere.
  const pathspecs = dashes === -1 ? [] : rest.slice(dashes + 1);
  const plain = pathspecs.every((spec) => !/^:|[*?[]/.test(spec));
  const searched = [...trees, ...(pathspecs.length === 0 ? [] : plain ? pathspecs : ["."])];
  // Config values and remote URLs often hold tokens (`https://user:TOKEN@host`): printing them reads
  // `.git/config` as surely as `cat .git/config`, so it is checked as that dangerous path.
  if (
    sub === "config" ||
    (sub === "remote" && rest.some((arg) => /^(-v+|--verbose|get-url|show)$/.test(arg)))
  )
    paths.push(".git/config");
  const verdict = (readOnly: boolean): GitVerdict => {
    const out: GitVerdict = { readOnly, paths, subcommand, searched, printsContent };
    if (content) out.content = content;
    return out;
  };
  if (!READ_ONLY.has(sub) || !reading.known) return verdict(false);
  // It prints from history and nothing limits it: not read-only (the decision says why).
  if (content && isUnboundedHistory(content)) return verdict(false);
  if (sub === "reflog") return verdict(rest.length === 0 || rest[0] === "show");
  if (sub === "config") return verdict(rest.length > 0 && LISTING_OPTIONS.has(rest[0]!));
  if (LISTING_ONLY.has(sub)) return verdict(rest.every((arg) => LISTING_OPTIONS.has(arg)));
  // `describe --dirty` and `--broken` refresh `.git/index`, optional locks or not.
  if (sub === "describe" && (reading.seen.has("--dirty") || reading.seen.has("--broken")))
    return verdict(false);
  return verdict(true);
}

/** A git operand may be a path or `rev:path` (which reads that file from history). */
function pathsInOperand(operand: string): string[] {
  const colon = operand.indexOf(":");
  if (colon === -1) return [operand];
  const path = operand.slice(colon + 1);
  return path === "" ? [] : [path];
}
