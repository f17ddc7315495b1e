/** Tables the Bash analysis reads: which commands only read, which edit files, which are dangerous. */

/** Where a read-only command's file arguments are: none, every non-option argument, or all but the first. */
export type PathArgs = "none" | "all" | "afterFirst";

export const READ_ONLY_COMMANDS: ReadonlyMap<string, PathArgs> = new Map<string, PathArgs>([
  ...(["echo", "printf", "pwd", "true", "false", "date", "whoami", "uname", "hostname", "id"] as const).map(
    (name) => [name, "none"] as const,
  ),
  ...(["which", "whereis", "type", "basename", "dirname", "seq", "sleep", "test", "["] as const).map(
    (name) => [name, "none"] as const,
  ),
  ...(["ls", "cat", "head", "tail", "wc", "stat", "file", "tree", "du", "df", "diff", "cmp"] as const).map(
    (name) => [name, "all"] as const,
  ),
  ...(
    ["less", "more", "realpath", "readlink", "nl", "cut", "md5sum", "sha1sum", "sha256sum", "find"] as const
  ).map((name) => [name, "all"] as const),
  ...(["grep", "egrep", "fgrep", "rg", "jq"] as const).map((name) => [name, "afterFirst"] as const),
  ["sort", "all"],
  ["uniq", "all"],
  ["cd", "none"],
]);

/** Arguments that make an otherwise read-only command write or run something. */
export const WRITING_OPTIONS: ReadonlyMap<string, readonly string[]> = new Map([
  ["find", ["-delete", "-exec", "-execdir", "-ok", "-okdir", "-fls", "-fprint", "-fprint0", "-fprintf"]],
  ["sort", ["-o", "--output"]],
  ["rg", ["--pre"]],
]);

/** git subcommands that only read (branch, tag and remote only in their listing forms). */
export const GIT_READ_ONLY = new Set([
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
]);

export const GIT_LISTING_ONLY = new Set(["branch", "tag", "remote", "reflog", "config"]);
export const GIT_LISTING_OPTIONS = new Set([
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

/** Commands that create, copy, move or remove files: accept_edits allows them inside the working directories. */
export const FILE_EDIT_COMMANDS = new Set(["mkdir", "touch", "cp", "mv", "rm", "rmdir", "ln"]);

/** Commands that wrap another command: the wrapped one is judged instead. */
export const WRAPPERS = new Set(["env", "nice", "nohup", "timeout", "command", "builtin", "time", "xargs"]);

export const SHELLS = new Set(["sh", "bash", "zsh", "dash", "ksh", "fish", "csh", "tcsh"]);
export const INTERPRETERS = new Set([...SHELLS, "python", "python3", "perl", "ruby", "node", "php"]);
export const DOWNLOADERS = new Set(["curl", "wget"]);

export const ELEVATE = new Set(["sudo", "doas", "su", "pkexec"]);
export const EVALUATORS = new Set(["eval", "exec", "source", "."]);
export const DISK_WRITERS = new Set([
  "dd",
  "fdisk",
  "sfdisk",
  "parted",
  "wipefs",
  "shred",
  "mkswap",
  "format",
]);
export const SYSTEM_STATE = new Set(["shutdown", "reboot", "halt", "poweroff"]);

/** Tools whose second word names what they do (`npm run`, `git push`): suggested rules keep it. */
export const SUBCOMMAND_TOOLS = new Set([
  "git",
  "npm",
  "pnpm",
  "yarn",
  "bun",
  "npx",
  "docker",
  "kubectl",
  "cargo",
  "go",
  "pip",
  "uv",
  "poetry",
  "gh",
  "make",
  "deno",
]);

/** Device files a command may write to without harm. */
export const HARMLESS_DEVICES = /^\/dev\/(null|stdout|stderr|tty|fd\/\d+)$/;

/** Variables whose expansion cannot change what an `echo` or `printf` does. */
export const SAFE_VARIABLES = new Set(["HOME", "PWD", "USER", "SHELL", "PATH", "LANG", "TERM", "OLDPWD"]);
