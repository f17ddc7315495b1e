/** Name sets the Bash analysis shares: shells, interpreters, privilege and code-running programs. */

export const SHELLS = new Set([
  ...["sh", "bash", "zsh", "dash", "ksh", "fish", "csh", "tcsh", "ash", "mksh", "lksh", "oksh"],
  ...["pdksh", "yash", "posh", "rbash", "hush", "elvish", "xonsh", "nu", "ion", "rc", "es"],
]);
export const INTERPRETERS = new Set([...SHELLS, "python", "python3", "perl", "ruby", "node", "php"]);
export const DOWNLOADERS = new Set(["curl", "wget"]);

export const ELEVATE = new Set(["sudo", "doas", "su", "pkexec"]);
export const EVALUATORS = new Set(["eval", "exec", "source", "."]);
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

/** Device files a command may write to without harm (descriptors 1 and 2 are the output). */
export const HARMLESS_DEVICES = /^\/dev\/(null|stdout|stderr|tty|fd\/[12])$/;

/** Variables whose expansion cannot change what an `echo` or `printf` does. */
export const SAFE_VARIABLES = new Set(["HOME", "PWD", "USER", "SHELL", "PATH", "LANG", "TERM", "OLDPWD"]);

/** Variables that change what later commands run or load (`PS4` is expanded on every traced line). */
export const RISKY_VARIABLE =
  /^(PATH|IFS|BASH_ENV|ENV|PROMPT_COMMAND|PS4|SHELLOPTS|BASHOPTS|CDPATH|PAGER|GIT_PAGER|MANPAGER|EDITOR|VISUAL|LESSOPEN|LESSCLOSE|NODE_OPTIONS|PYTHONSTARTUP|PYTHONPATH|PERL5OPT|PERL5LIB|RUBYOPT|LD_.*|DYLD_.*|GIT_.*)$/;
