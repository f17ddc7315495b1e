/**
 * Per-program option tables for the read-only allow-list. A command is read-only only when every
 * option it is given is listed here; anything unknown makes it "may change something".
 */
export interface ProgramSpec {
  /** Options that take no value (short ones may be bundled: `-la`). */
  flags?: string;
  /** Options that take a value, as the next word or attached (`-n5`, `--lines=5`). */
  valued?: string;
  /** Valued options whose value is a file the command reads (checked like any path). */
  readsPath?: string;
  /** Valued options whose value is a file the command writes: the command is not read-only. */
  writesPath?: string;
  /** Options that run another program or write: a person must confirm. */
  unsafe?: string;
  /** `-5` is a count (head, tail, grep context). */
  numeric?: boolean;
  /** Every word starting with `-` is accepted as an argument (echo, test). */
  anyOption?: boolean;
  /** What the non-option words are: text, paths, or a pattern/program followed by paths. */
  operands: "text" | "paths" | "patternThenPaths";
}

/** A spec with its option strings split into sets once. */
export interface CompiledSpec {
  spec: ProgramSpec;
  flags: Set<string>;
  valued: Set<string>;
  readsPath: Set<string>;
  writesPath: Set<string>;
  unsafe: Set<string>;
}

export function compileSpec(spec: ProgramSpec): CompiledSpec {
  const set = (text: string | undefined) => new Set((text ?? "").split(/\s+/).filter(Boolean));
  return {
    spec,
    flags: set(spec.flags),
    valued: set(`${spec.valued ?? ""} ${spec.readsPath ?? ""} ${spec.writesPath ?? ""}`),
    readsPath: set(spec.readsPath),
    writesPath: set(spec.writesPath),
    unsafe: set(spec.unsafe),
  };
}

/** What reading a command's arguments against its spec found. */
export interface OptionReading {
  /** Every option is in the table. */
  known: boolean;
  /** An option that runs a program or writes was given (the option as written). */
  unsafe?: string;
  /** The command writes (a `writesPath` option). */
  writes: boolean;
  /** Non-option words, in order. */
  operands: string[];
  /** Files named by options (`--file=x`, `-fx`, `-o x`). */
  paths: string[];
  /** Options given, by name (`-n`, `--lines`), for program-specific checks. */
  seen: Set<string>;
}

/** Reads arguments against a spec; `--` ends the options. */
export function readOptions(args: readonly string[], compiled: CompiledSpec): OptionReading {
  const { spec } = compiled;
  const reading: OptionReading = { known: true, writes: false, operands: [], paths: [], seen: new Set() };
  const takeValue = (name: string, value: string | undefined): void => {
    reading.seen.add(name);
    if (compiled.unsafe.has(name)) reading.unsafe ??= name;
    if (value === undefined) return;
    if (compiled.readsPath.has(name)) reading.paths.push(value);
    if (compiled.writesPath.has(name)) {
      reading.paths.push(value);
      reading.writes = true;
    }
  };
  for (let index = 0; index < args.length; index++) {
    const arg = args[index]!;
    if (arg === "--") {
      reading.operands.push(...args.slice(index + 1));
      break;
    }
    if (!arg.startsWith("-") || arg === "-") {
      reading.operands.push(arg);
      continue;
    }
    if (spec.anyOption || (spec.numeric && /^-\d+$/.test(arg))) continue;
    if (arg.startsWith("--")) {
      const eq = arg.indexOf("=");
      const name = eq === -1 ? arg : arg.slice(0, eq);
      if (compiled.unsafe.has(name) || abbreviatesUnsafe(name, compiled)) reading.unsafe ??= arg;
      if (eq !== -1) {
        if (compiled.valued.has(name) || compiled.flags.has(`${name}=`)) takeValue(name, arg.slice(eq + 1));
        else reading.known = false;
      } else if (compiled.flags.has(name)) {
        reading.seen.add(name);
      } else if (compiled.valued.has(name)) {
        takeValue(name, args[++index]);
      } else {
        reading.known = false;
      }
      continue;
    }
    for (let at = 1; at < arg.length; at++) {
      const name = `-${arg[at]}`;
      if (compiled.unsafe.has(name)) reading.unsafe ??= arg;
      if (compiled.flags.has(name)) {
        reading.seen.add(name);
        continue;
      }
      if (compiled.valued.has(name)) {
        const attached = arg.slice(at + 1);
        takeValue(name, attached !== "" ? attached : args[++index]);
        break;
      }
      // `-5` is a count; what follows it in the bundle is read on (`grep -5f/etc/passwd`).
      if (spec.numeric && /\d/.test(arg[at]!)) continue;
      reading.known = false;
      break;
    }
  }
  return reading;
}

/**
 * GNU getopt_long and git's parse-options accept any unique prefix of a long option
 * (`sort --compress-p=sh` is `--compress-program=sh`): a prefix of an unsafe option that is not
 * itself a known option counts as that unsafe option.
 */
export function abbreviatesUnsafe(name: string, compiled: CompiledSpec): boolean {
  if (name.length < 3 || compiled.flags.has(name) || compiled.valued.has(name)) return false;
  for (const unsafe of compiled.unsafe) if (unsafe.startsWith("--") && unsafe.startsWith(name)) return true;
  return false;
}
