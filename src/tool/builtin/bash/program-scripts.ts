/**
 * Programs whose options or scripts run other programs, print the environment, or read files of
 * their choosing. Each finding is a safety ask, so an allow rule such as `Bash(tar:*)` or
 * `Bash(jq:*)` never allows more than the program's plain use.
 */

interface RunningOptions {
  /** Long options (a unique prefix counts too: getopt_long accepts `--to-com` for `--to-command`). */
  long: string[];
  /** Short options, alone or in a bundle (`-cI prog`). */
  short?: string;
}

const RUNS_PROGRAMS: Readonly<Record<string, RunningOptions>> = {
  tar: {
    long: [
      "--to-command",
      "--use-compress-program",
      "--checkpoint-action",
      "--rsh-command",
      "--info-script",
      "--new-volume-script",
      "--rmt-command",
    ],
    short: "IF",
  },
  rsync: { long: ["--rsh", "--rsync-path"], short: "e" },
  sort: { long: ["--compress-program"] },
  zip: { long: ["--unzip-command"], short: "T" },
  man: { long: ["--pager", "--html"], short: "PH" },
  less: { long: ["--lesskey-file", "--lesskey-src"] },
};

/**
 * jq builtins that print the environment or load code and data from elsewhere. jq's lexer lets
 * blanks and comments sit between `$` and a name (`$ ENV`, `$\tENV`, `$#c⏎ENV`), so those count too.
 */
const JQ_REACHES_OUT =
  /\$(?:\s|#[^\n]*)*ENV\b|(^|[^.$\w])env\b|\b(import|include|modulemeta|get_search_list|input_filename)\b/;

/**
 * awk constructs that run commands (`system`, pipes), write files (`print > f`), read files not
 * named on the command line (`getline`, `ARGV`), or print the environment (`ENVIRON`, `PROCINFO`,
 * `SYMTAB`); gawk's `@` (indirect calls `@f()`, `@load`, `@include`) can reach any of them.
 */
const AWK_REACHES_OUT =
  /\bsystem\s*\(|\bgetline\b|(?<!\|)\|(?!\|)|\bENVIRON\b|\bPROCINFO\b|\bSYMTAB\b|\bFUNCTAB\b|\bARGV\b|\bARGC\b|@|\b(print|printf)\b[^;{}]*>/;
const AWKS = new Set(["awk", "gawk", "mawk", "nawk", "busybox-awk"]);

/**
 * Why a program's options or script reach beyond printing what it names, or undefined. `runs`: it
 * may run another program (deny rules then match it whatever they name).
 */
export function programScriptFinding(
  program: string,
  args: readonly string[],
): { reason: string; runs: boolean } | undefined {
  const reason = programScriptReason(program, args);
  return reason === undefined ? undefined : { reason, runs: program !== "jq" };
}

function programScriptReason(program: string, args: readonly string[]): string | undefined {
  if (program === "jq") {
    const file = args.find((arg) => /^(-f|--from-file)/.test(arg) || /^-[a-zA-Z]*f$/.test(arg));
    if (file) return `jq ${file} reads its filter from a file, which may print the environment`;
    const reaching = args.find((arg) => JQ_REACHES_OUT.test(arg));
    return reaching === undefined
      ? undefined
      : `jq ${reaching} reads the environment or loads modules, which may hold secrets or code`;
  }
  if (AWKS.has(program)) return awkReason(program, args);
  const running = RUNS_PROGRAMS[program];
  if (!running) return undefined;
  for (const arg of args) {
    if (arg === "--") break;
    if (arg.startsWith("--")) {
      const name = arg.split("=")[0]!;
      if (name.length > 3 && running.long.some((option) => option.startsWith(name)))
        return `${program} ${arg} runs another program`;
      continue;
    }
    const short = running.short;
    if (short && /^-[A-Za-z]+/.test(arg) && [...arg.slice(1)].some((char) => short.includes(char)))
      return `${program} ${arg} runs another program`;
  }
  return undefined;
}

/** awk: a program from a file (`-f`), loaded extensions, or a script that reaches out. */
function awkReason(program: string, args: readonly string[]): string | undefined {
  const flag = args.find((arg) => /^-(f|-file|i|-include|l|-load|E|-exec)/.test(arg));
  if (flag) return `${program} ${flag} runs a program file or extension`;
  // Every word is tested: which one is the program depends on options (`-F :`, `-v x=1`).
  const script = args.find((arg) => AWK_REACHES_OUT.test(arg));
  if (script !== undefined)
    return `the ${program} program ${script} may run commands, write or read other files, or print the environment`;
  return undefined;
}
