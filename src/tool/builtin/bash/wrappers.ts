import { EVALUATORS, INTERPRETERS, RISKY_VARIABLE } from "../bash-commands.js";

/**
 * Programs that run another program given on their command line (`env X=1 rm a`, `timeout 5 rm a`,
 * `xargs rm`): the Bash analysis judges, and rules match, the program they run. Each wrapper's
 * options are listed; a form that is not (an unknown option, a command built from input, a program
 * runner whose forms are not modelled) is `unmodelled`: deny rules match it whatever they name.
 */
export interface Unwrapped {
  /** The command the wrapper runs (empty when it runs none, e.g. a bare `env`). */
  inner: string[];
  /** Files the wrapper itself reads or writes (`env -C dir`, `xargs -a file`, `time -o file`). */
  paths: string[];
  /** Why the program it runs cannot be read from the text: deny rules count it as a match. */
  unmodelled?: string;
}

interface WrapperSpec {
  /** Short options without a value (bundled: `-fn`). */
  flags?: string;
  /** Short options taking a value, attached or as the next word. */
  valued?: string;
  /** Short options whose value, if any, is attached (`xargs -i{}`, `-l5`). */
  optional?: string;
  /** Long options without a value (`--foreground`); `--x=v` is accepted for those ending in `=`. */
  long?: string[];
  /** Long options taking a value (`--signal=KILL`, `--signal KILL`). */
  longValued?: string[];
  /** Options whose value is a path (the wrapper then is not read-only: `time -o out`). */
  pathOptions?: string[];
  /** Options whose value is shell code the wrapper runs with `sh -c` (`flock -c`, `su -c`). */
  shellOptions?: string[];
  /** Options after which it runs no command (`sudo -l`, `ionice -p PID`). */
  noCommand?: string[];
  /** `-5` is a value (nice's adjustment). */
  numeric?: boolean;
  /** Leading operands consumed before the command (timeout's duration, taskset's mask). */
  leadingOperands?: number;
  /** Accepts `NAME=value` words before the command (env). */
  assignments?: boolean;
  /** Its command words are joined and run by `sh -c`, as `watch` does (`watch 'ls; rm a'`). */
  splitsCommand?: boolean;
  /** Its operands are not a command (`script FILE`, `su USER`): only a shell option runs one. */
  operandsAreNotACommand?: boolean;
}

const WRAPPERS: Readonly<Record<string, WrapperSpec>> = {
  command: { flags: "p" },
  builtin: {},
  exec: { flags: "cl", valued: "a" },
  env: {
    flags: "i0v",
    valued: "uCS",
    long: ["--ignore-environment", "--null", "--debug"],
    longValued: ["--unset", "--chdir", "--split-string"],
    pathOptions: ["-C", "--chdir"],
    assignments: true,
  },
  nice: { valued: "n", longValued: ["--adjustment"], numeric: true },
  nohup: {},
  timeout: {
    flags: "v",
    valued: "sk",
    long: ["--preserve-status", "--foreground", "--verbose"],
    longValued: ["--signal", "--kill-after"],
    leadingOperands: 1,
  },
  time: {
    flags: "pvaq",
    valued: "fo",
    long: ["--portability", "--verbose", "--append", "--quiet"],
    longValued: ["--format", "--output"],
    pathOptions: ["-o", "--output"],
  },
  stdbuf: { valued: "ioe", longValued: ["--input", "--output", "--error"] },
  xargs: {
    flags: "0prtx",
    valued: "InLPsdEa",
    optional: "ile",
    long: ["--null", "--interactive", "--verbose", "--no-run-if-empty", "--exit", "--open-tty"],
    longValued: [
      "--max-args",
      "--max-lines",
      "--max-procs",
      "--max-chars",
      "--delimiter",
      "--arg-file",
      "--eof",
      "--replace",
      "--process-slot-var",
    ],
    pathOptions: ["-a", "--arg-file"],
  },
  sudo: {
    flags: "AbEHnPSsiBN",
    valued: "ughpCDrtUTR",
    long: [
      "--askpass",
      "--background",
      "--preserve-env",
      "--preserve-env=",
      "--set-home",
      "--non-interactive",
      "--stdin",
      "--shell",
      "--login",
      "--preserve-groups",
      "--bell",
    ],
    longValued: [
      "--user",
      "--group",
      "--host",
      "--prompt",
      "--chdir",
      "--close-from",
      "--role",
      "--type",
      "--other-user",
      "--command-timeout",
      "--chroot",
    ],
    noCommand: ["-l", "-v", "-k", "-K", "-V", "-h", "-e", "--list", "--validate", "--edit", "--help"],
  },
  doas: { flags: "nLs", valued: "uC", noCommand: ["-L", "-C"] },
  setsid: { flags: "cfw", long: ["--ctty", "--fork", "--wait"] },
  ionice: {
    flags: "t",
    valued: "cnpPu",
    long: ["--ignore"],
    longValued: ["--class", "--classdata", "--pid", "--pgid", "--uid"],
    noCommand: ["-p", "-P", "-u", "--pid", "--pgid", "--uid"],
  },
  taskset: {
    flags: "ac",
    long: ["--all-tasks", "--cpu-list"],
    noCommand: ["-p", "--pid"],
    leadingOperands: 1,
  },
  chrt: {
    flags: "abfiodrRmv",
    valued: "TPD",
    long: ["--all-tasks", "--batch", "--fifo", "--idle", "--other", "--deadline", "--rr", "--reset-on-fork"],
    longValued: ["--sched-runtime", "--sched-period", "--sched-deadline"],
    noCommand: ["-p", "--pid", "-m", "--max"],
    leadingOperands: 1,
  },
  chroot: { long: ["--skip-chdir"], longValued: ["--userspec", "--groups"], leadingOperands: 1 },
  flock: {
    flags: "sxnuoFev",
    valued: "wEc",
    long: ["--shared", "--exclusive", "--nonblock", "--unlock", "--close", "--no-fork", "--verbose"],
    longValued: ["--timeout", "--conflict-exit-code", "--command"],
    shellOptions: ["-c", "--command"],
    leadingOperands: 1,
  },
  busybox: {},
  watch: {
    flags: "dtbegcxpr",
    valued: "nq",
    long: [
      "--differences",
      "--differences=",
      "--no-title",
      "--beep",
      "--errexit",
      "--chgexit",
      "--color",
      "--exec",
      "--precise",
      "--no-wrap",
    ],
    longValued: ["--interval", "--equexit"],
    splitsCommand: true,
  },
  unbuffer: { flags: "p" },
  script: {
    flags: "aeEfqk",
    valued: "tTIOBm",
    long: ["--append", "--return", "--flush", "--quiet", "--force", "--echo="],
    longValued: ["--timing", "--log-timing", "--log-in", "--log-out", "--log-io", "--logging-format"],
    shellOptions: ["-c", "--command"],
    operandsAreNotACommand: true,
  },
  su: {
    flags: "lmpfP",
    valued: "gGsw",
    long: ["--login", "--preserve-environment", "--pty", "--fast"],
    longValued: ["--group", "--supp-group", "--shell", "--whitelist-environment"],
    shellOptions: ["-c", "--command", "--session-command"],
    operandsAreNotACommand: true,
  },
  runuser: {
    flags: "lmpfP",
    valued: "gGswu",
    long: ["--login", "--preserve-environment", "--pty", "--fast"],
    longValued: ["--group", "--supp-group", "--shell", "--whitelist-environment", "--user"],
    shellOptions: ["-c", "--command", "--session-command"],
  },
  npx: {
    flags: "yq",
    valued: "pc",
    long: ["--yes", "--no", "--quiet"],
    longValued: ["--package", "--call"],
    shellOptions: ["-c", "--call"],
  },
};

/**
 * Programs that run programs in forms the analysis does not model (tracers, sandboxes, remote
 * shells, job runners, package runners): deny rules match them whatever they name.
 */
const UNMODELLED_RUNNERS = new Set([
  "strace",
  "ltrace",
  "unshare",
  "nsenter",
  "firejail",
  "bwrap",
  "systemd-run",
  "setpriv",
  "prlimit",
  "numactl",
  "cpulimit",
  "faketime",
  "fakeroot",
  "valgrind",
  "gdb",
  "lldb",
  "rlwrap",
  "torsocks",
  "proxychains",
  "proxychains4",
  "catchsegv",
  "dbus-run-session",
  "dbus-launch",
  "xvfb-run",
  "entr",
  "parallel",
  "sem",
  "ssh",
  "expect",
  "tmux",
  "screen",
  "at",
  "batch",
  "ifne",
  "chronic",
  "lckdo",
  "run-parts",
  "start-stop-daemon",
  "daemonize",
  "dumb-init",
  "tini",
  "gosu",
  "su-exec",
  "chpst",
  "softlimit",
  "envdir",
  "setuidgid",
  "sshpass",
  "timelimit",
  "cgexec",
  "trickle",
  "eatmydata",
  "aa-exec",
  "sandbox-exec",
  "setarch",
  "linux32",
  "linux64",
  "mpirun",
  "srun",
  "perf",
  "hyperfine",
  "caffeinate",
  "nix-shell",
  "direnv",
  "sg",
  "pkexec",
  "bunx",
  "pnpx",
  "uvx",
  "pipx",
  // Build tools run their recipes, editors their `!cmd` and `:!cmd` (`vim -es -c '!rm a'`).
  "make",
  "gmake",
  "bmake",
  "ninja",
  "just",
  "rake",
  "vim",
  "vi",
  "nvim",
  "ex",
  "view",
  "rvim",
  "vimdiff",
  "gvim",
  "emacs",
  "ed",
  // capsh runs a shell with the words after `--`.
  "capsh",
]);
/** Subcommands that run a program named after them (`npm exec x`, `uv run x`, `docker exec c x`). */
const RUNNER_SUBCOMMANDS: Readonly<Record<string, ReadonlySet<string>>> = {
  npm: new Set(["exec", "x"]),
  pnpm: new Set(["exec", "dlx"]),
  yarn: new Set(["exec", "dlx"]),
  bun: new Set(["x", "exec"]),
  uv: new Set(["run", "tool"]),
  poetry: new Set(["run"]),
  pipenv: new Set(["run"]),
  conda: new Set(["run"]),
  docker: new Set(["exec", "run"]),
  podman: new Set(["exec", "run"]),
  kubectl: new Set(["exec", "run", "debug"]),
  git: new Set(["bisect", "submodule", "rebase", "difftool", "filter-branch"]),
  cargo: new Set(["run", "exec"]),
};

/** `command -v x` and `command -V x` only look a name up. */
function looksUpOnly(program: string, args: readonly string[]): boolean {
  return program === "command" && args.some((arg) => /^-[pvV]*[vV]/.test(arg));
}

/** The command a wrapper runs, or undefined when `program` is not a wrapper (or only looks up). */
export function unwrap(program: string, args: readonly string[]): Unwrapped | undefined {
  const later = runsLater(program, args);
  if (later) return later;
  if (UNMODELLED_RUNNERS.has(program))
    return { inner: [], paths: [], unmodelled: `${program} runs programs in forms that are not modelled` };
  const runner = RUNNER_SUBCOMMANDS[program];
  const sub = args.find((arg) => !arg.startsWith("-"));
  if (runner && sub !== undefined && runner.has(sub))
    return { inner: [], paths: [], unmodelled: `${program} ${sub} runs a program that is not modelled` };
  const spec = isWrapper(program) ? WRAPPERS[program] : undefined;
  if (!spec || looksUpOnly(program, args)) return undefined;
  const unwrapped = readWrapper(program, spec, args);
  return unwrapped.unmodelled ? unwrapped : { ...unwrapped, ...buildsFromInput(program, unwrapped) };
}

/**
 * Builtins that arrange for code to run later: `trap CODE SIGNAL` runs CODE (judged as `eval` would
 * be), `hash -p PATH NAME` makes NAME run PATH and `enable -f LIB NAME` loads a builtin from a
 * library, neither of which the later commands' text shows.
 */
function runsLater(program: string, args: readonly string[]): Unwrapped | undefined {
  if (program === "trap") {
    const operands = args[0] === "--" ? args.slice(1) : args.filter((arg) => !/^-[lp]+$/.test(arg));
    const [code] = operands;
    if (operands.length < 2 || code === undefined || code === "" || code === "-") return undefined;
    return { inner: ["eval", code], paths: [] };
  }
  if (program === "hash" && args.some((arg) => /^-[a-zA-Z]*p/.test(arg)))
    return { inner: [], paths: [], unmodelled: "hash -p makes a name run another program" };
  if (program === "enable" && args.some((arg) => /^-[a-zA-Z]*f/.test(arg)))
    return { inner: [], paths: [], unmodelled: "enable -f loads a builtin from a library" };
  return undefined;
}

/** Walks a wrapper's options to the command it runs. */
function readWrapper(program: string, spec: WrapperSpec, args: readonly string[]): Unwrapped {
  const paths: string[] = [];
  const unknown = (arg: string): Unwrapped => ({
    inner: [],
    paths,
    unmodelled: `${program} ${arg} is an option the analysis does not know`,
  });
  const none = (): Unwrapped => ({ inner: [], paths });
  const shell = (code: string | undefined): Unwrapped =>
    code === undefined ? none() : { inner: ["sh", "-c", code], paths };
  let leading = spec.leadingOperands ?? 0;
  let index = 0;
  let joins = spec.splitsCommand === true;
  /** xargs's replace string (`-I X`, `-i`, `--replace=X`): input takes its place in the command. */
  let replace: string | undefined;
  for (; index < args.length; index++) {
    const arg = args[index]!;
    if (arg === "--") {
      index++;
      break;
    }
    if (arg.startsWith("--")) {
      const eq = arg.indexOf("=");
      const name = eq === -1 ? arg : arg.slice(0, eq);
      const valued = spec.longValued?.includes(name) ?? false;
      if (!valued && !spec.long?.includes(eq === -1 ? name : `${name}=`)) return unknown(arg);
      const value = eq !== -1 ? arg.slice(eq + 1) : valued ? args[++index] : undefined;
      if (spec.noCommand?.includes(name)) return none();
      if (spec.shellOptions?.includes(name)) return shell(value);
      if (value !== undefined && spec.pathOptions?.includes(name)) paths.push(value);
      if (name === "--split-string" && value !== undefined) return splitString(value, args, index, paths);
      if (name === "--exec") joins = false;
      if (name === "--replace") replace = value ?? "{}";
      continue;
    }
    if (arg.startsWith("-") && arg.length > 1) {
      if (spec.numeric && /^-\d+$/.test(arg)) continue;
      if (program === "env" && arg === "-") continue;
      for (let at = 1; at < arg.length; at++) {
        const char = arg[at]!;
        const name = `-${char}`;
        if (spec.noCommand?.includes(name)) return none();
        if (spec.optional?.includes(char)) {
          if (char === "i") replace = arg.slice(at + 1) || "{}";
          break;
        }
        if (spec.valued?.includes(char)) {
          const value = at + 1 < arg.length ? arg.slice(at + 1) : args[++index];
          if (program === "xargs" && char === "I") replace = value;
          if (spec.shellOptions?.includes(name)) return shell(value);
          if (value !== undefined && spec.pathOptions?.includes(name)) paths.push(value);
          if (name === "-S" && program === "env" && value !== undefined)
            return splitString(value, args, index, paths);
          break;
        }
        if (!spec.flags?.includes(char)) return unknown(arg);
        if (name === "-x" && program === "watch") joins = false;
      }
      continue;
    }
    if (spec.assignments && /^[A-Za-z_][A-Za-z0-9_]*=/.test(arg)) {
      const name = arg.slice(0, arg.indexOf("="));
      if (RISKY_VARIABLE.test(name))
        return { inner: [], paths, unmodelled: `${program} ${name}=... changes what the program runs` };
      continue;
    }
    if (leading > 0) {
      leading--;
      continue;
    }
    break;
  }
  if (spec.operandsAreNotACommand) return none();
  let inner = args.slice(index);
  if (program === "xargs" && inner.length === 0) return { inner: ["echo"], paths };
  if (replace !== undefined && replace !== "" && inner[0]?.includes(replace))
    return { inner, paths, unmodelled: `xargs puts its input in the program's place (${replace})` };
  if (joins && inner.length > 0) inner = ["sh", "-c", inner.join(" ")];
  return { inner, paths };
}

/** `env -S 'a b'` splits its value into words (quotes inside are not modelled) and reads them as its own. */
function splitString(value: string, args: readonly string[], index: number, paths: string[]): Unwrapped {
  if (/["'\\$]/.test(value))
    return {
      inner: [],
      paths,
      unmodelled: `env -S ${value} has quoting or variables, which are not modelled`,
    };
  // The split words are env's own again (`-S 'X=1 cmd'` sets X), so env reads them once more.
  return { inner: ["env", ...value.split(/\s+/).filter(Boolean), ...args.slice(index + 1)], paths };
}

/**
 * `xargs sh -c ...`, `xargs -I{} {} ...`: the command is built from input, so the program or its
 * code cannot be read from the text.
 */
function buildsFromInput(program: string, unwrapped: Unwrapped): Partial<Unwrapped> {
  if (program !== "xargs") return {};
  const [inner = ""] = unwrapped.inner;
  if (INTERPRETERS.has(inner) || EVALUATORS.has(inner) || isWrapper(inner) || inner.includes("{}"))
    return { unmodelled: `xargs runs ${inner} with code or a program taken from its input` };
  return {};
}

/** Whether a program is one of the wrappers `unwrap` sees through. */
export function isWrapper(program: string): boolean {
  return Object.hasOwn(WRAPPERS, program);
}
