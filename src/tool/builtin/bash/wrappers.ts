/**
 * Programs that run another program given on their command line (`env X=1 rm a`, `timeout 5 rm a`,
 * `xargs rm`): the Bash analysis judges, and rules match, the program they run.
 */
export interface Unwrapped {
  /** The command the wrapper runs (empty when it runs none, e.g. a bare `env`). */
  inner: string[];
  /** Files the wrapper itself reads or writes (`env -C dir`, `xargs -a file`). */
  paths: string[];
}

interface WrapperSpec {
  /** Short options taking a value (attached or next word). */
  valued: string;
  /** Long options taking a value (`--x=v` or `--x v`). */
  longValued?: string[];
  /** Options whose value is a path. */
  pathOptions?: string[];
  /** Leading operands consumed before the command (timeout's duration, taskset's mask). */
  leadingOperands?: number;
  /** Accepts `NAME=value` words before the command (env). */
  assignments?: boolean;
  /** Its command words are joined and run by `sh -c`, as `watch` does (`watch 'ls; rm a'`). */
  splitsCommand?: boolean;
}

const WRAPPERS: Readonly<Record<string, WrapperSpec>> = {
  command: { valued: "" },
  builtin: { valued: "" },
  exec: { valued: "a" },
  env: {
    valued: "uCS",
    longValued: ["--unset", "--chdir", "--split-string"],
    pathOptions: ["-C", "--chdir"],
    assignments: true,
  },
  nice: { valued: "n", longValued: ["--adjustment"] },
  nohup: { valued: "" },
  timeout: { valued: "sk", longValued: ["--signal", "--kill-after"], leadingOperands: 1 },
  time: { valued: "fo" },
  stdbuf: { valued: "ioe", longValued: ["--input", "--output", "--error"] },
  xargs: {
    valued: "InLPsdEa",
    longValued: [
      "--max-args",
      "--max-lines",
      "--max-procs",
      "--max-chars",
      "--delimiter",
      "--arg-file",
      "--eof",
      "--replace",
    ],
    pathOptions: ["-a", "--arg-file"],
  },
  sudo: { valued: "ughpCDrtUT", longValued: ["--user", "--group", "--host", "--prompt", "--chdir"] },
  doas: { valued: "uC" },
  setsid: { valued: "" },
  ionice: { valued: "cnp", longValued: ["--class", "--classdata", "--pid"] },
  taskset: { valued: "", leadingOperands: 1 },
  chroot: { valued: "", leadingOperands: 1, longValued: ["--userspec", "--groups"] },
  flock: { valued: "wEc", leadingOperands: 1 },
  busybox: { valued: "" },
  watch: { valued: "nd", longValued: ["--interval", "--differences"], splitsCommand: true },
};

/** `command -v x` and `command -V x` only look a name up. */
function looksUpOnly(program: string, args: readonly string[]): boolean {
  return program === "command" && args.some((arg) => /^-[pvV]*[vV]/.test(arg));
}

/** The command a wrapper runs, or undefined when `program` is not a wrapper (or only looks up). */
export function unwrap(program: string, args: readonly string[]): Unwrapped | undefined {
  const spec = isWrapper(program) ? WRAPPERS[program] : undefined;
  if (!spec || looksUpOnly(program, args)) return undefined;
  const paths: string[] = [];
  let leading = spec.leadingOperands ?? 0;
  let index = 0;
  while (index < args.length) {
    const arg = args[index]!;
    if (arg === "--") {
      index++;
      break;
    }
    if (arg.startsWith("--")) {
      const [name, value] = splitLong(arg);
      const takesValue = spec.longValued?.includes(name) ?? false;
      const optionValue = value ?? (takesValue ? args[++index] : undefined);
      if (optionValue !== undefined && spec.pathOptions?.includes(name)) paths.push(optionValue);
      if (name === "--split-string" && optionValue !== undefined) {
        return { inner: [...optionValue.split(/\s+/).filter(Boolean), ...args.slice(index + 1)], paths };
      }
      index++;
      continue;
    }
    if (arg.startsWith("-") && arg.length > 1 && !(program === "nice" && /^-\d+$/.test(arg))) {
      const valuedAt = [...arg.slice(1)].findIndex((char) => spec.valued.includes(char));
      if (valuedAt !== -1) {
        const name = `-${arg[valuedAt + 1]}`;
        const attached = arg.slice(valuedAt + 2);
        const value = attached !== "" ? attached : args[++index];
        if (value !== undefined && spec.pathOptions?.includes(name)) paths.push(value);
        if (name === "-S" && program === "env" && value !== undefined) {
          return { inner: [...value.split(/\s+/).filter(Boolean), ...args.slice(index + 1)], paths };
        }
      }
      index++;
      continue;
    }
    if (program === "nice" && /^-\d+$/.test(arg)) {
      index++;
      continue;
    }
    if (spec.assignments && /^[A-Za-z_][A-Za-z0-9_]*=/.test(arg)) {
      index++;
      continue;
    }
    if (leading > 0) {
      leading--;
      index++;
      continue;
    }
    break;
  }
  let inner = args.slice(index);
  if (program === "xargs" && inner.length === 0) return { inner: ["echo"], paths };
  if (spec.splitsCommand && inner.length > 0) inner = ["sh", "-c", inner.join(" ")];
  return { inner, paths };
}

/** Whether a program is one of the wrappers `unwrap` sees through. */
export function isWrapper(program: string): boolean {
  return Object.hasOwn(WRAPPERS, program);
}

function splitLong(arg: string): [string, string | undefined] {
  const eq = arg.indexOf("=");
  return eq === -1 ? [arg, undefined] : [arg.slice(0, eq), arg.slice(eq + 1)];
}
