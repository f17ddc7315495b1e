import { readSedScript } from "./sed-script.js";

/** What the Bash analysis learns about one sed command. */
export interface SedVerdict {
  /** Only prints: every option known, the script understood, no `-i`, no `w`, `r` or `e`. */
  readOnly: boolean;
  /** `sed -i` with a script that only edits (accept_edits may allow it inside the working directories). */
  fileEdit: boolean;
  /** Files it reads or edits (operands, `-f` script files). */
  paths: string[];
  /**
   * Why a person must confirm whatever the rules say: the script writes or reads a file of its own
   * choosing, runs commands, comes from a file, or is not understood. A `Bash(sed:*)` rule must not
   * allow more than editing and printing the files it names.
   */
  unsafe?: string;
  /** The script may run commands (`e`, `s///e`, a script file): deny rules match it. */
  runs: boolean;
}

const FLAGS = new Set([
  "-n",
  "--quiet",
  "--silent",
  "-E",
  "-r",
  "--regexp-extended",
  "-s",
  "--separate",
  "-u",
  "--unbuffered",
  "-z",
  "--null-data",
  "--posix",
  "--debug",
  "--sandbox",
  "--follow-symlinks",
  "-b",
  "--binary",
]);
const SHORT_FLAGS = "nErsuzb";
/**
 * GNU sed's long options: getopt_long takes any unique prefix (`--e=x` is `--expression=x`), so a
 * word is resolved against all of them before it is judged.
 */
const LONG_OPTIONS = [
  ...[...FLAGS].filter((flag) => flag.startsWith("--")),
  "--expression",
  "--file",
  "--in-place",
  "--line-length",
  "--zero-terminated",
  "--help",
  "--version",
];
/** Where `w` may write without a question: the command's own output. */
const OUTPUT = new Set(["/dev/stdout", "/dev/stderr"]);

/** Judges `sed ...` (args without the program name). */
export function analyzeSed(args: readonly string[]): SedVerdict {
  const paths: string[] = [];
  const operands: string[] = [];
  let scripts: string[] | undefined;
  let scriptFile: string | undefined;
  let inPlace = false;
  let known = true;
  const addScript = (text: string) => {
    scripts = [...(scripts ?? []), text];
  };
  for (let index = 0; index < args.length; index++) {
    const arg = args[index]!;
    if (arg === "--") {
      operands.push(...args.slice(index + 1));
      break;
    }
    if (!arg.startsWith("-") || arg === "-") {
      operands.push(arg);
      continue;
    }
    if (arg.startsWith("--")) {
      const eq = arg.indexOf("=");
      const name = longOption(eq === -1 ? arg : arg.slice(0, eq));
      const value = eq === -1 ? undefined : arg.slice(eq + 1);
      if (name === undefined)
        return {
          readOnly: false,
          fileEdit: false,
          paths: [...paths, ...args.filter((word) => !word.startsWith("-"))],
          runs: true,
          unsafe: `sed ${arg} is an option the analysis does not know, which may carry a script`,
        };
      if (FLAGS.has(name) && value === undefined) continue;
      if (name === "--in-place") inPlace = true;
      else if (name === "--expression") addScript(value ?? args[++index] ?? "");
      else if (name === "--file") scriptFile = value ?? args[++index] ?? "";
      else if (name === "--zero-terminated") continue;
      else if (name !== "--line-length") known = false;
      else if (value === undefined) index++;
      continue;
    }
    for (let at = 1; at < arg.length; at++) {
      const char = arg[at]!;
      const rest = arg.slice(at + 1);
      if (SHORT_FLAGS.includes(char)) continue;
      if (char === "i") {
        // `-i` takes an optional attached suffix: `-i.bak` (the rest is the suffix, not options).
        inPlace = true;
        break;
      }
      if (char === "e" || char === "f" || char === "l") {
        const value = rest !== "" ? rest : (args[++index] ?? "");
        if (char === "e") addScript(value);
        if (char === "f") scriptFile = value;
        break;
      }
      known = false;
      break;
    }
  }
  if (scriptFile !== undefined) paths.push(scriptFile);
  const script = scripts ?? (scriptFile === undefined ? operands.slice(0, 1) : []);
  const files = scripts || scriptFile !== undefined ? operands : operands.slice(1);
  paths.push(...files.filter((file) => file !== "-"));
  const verdict: SedVerdict = { readOnly: false, fileEdit: false, paths, runs: false };
  if (scriptFile !== undefined) {
    return {
      ...verdict,
      runs: true,
      unsafe: `sed runs the script file ${scriptFile}, which may write files or run commands`,
    };
  }
  const read = readSedScript(script.join("\n"));
  if (!read.understood)
    return { ...verdict, runs: true, unsafe: `the sed script ${script.join("; ")} is not understood` };
  if (read.runs) return { ...verdict, runs: true, unsafe: "the sed script runs shell commands (e)" };
  const written = read.writes.find((file) => !OUTPUT.has(file));
  if (written !== undefined) return { ...verdict, unsafe: `the sed script writes ${written} (w)` };
  if (read.reads.length > 0) return { ...verdict, unsafe: `the sed script reads ${read.reads[0]} (r)` };
  return { ...verdict, readOnly: known && !inPlace, fileEdit: known && inPlace && files.length > 0 };
}

/** The long option a word names, whole or by a unique prefix; undefined when none or ambiguous. */
function longOption(word: string): string | undefined {
  if (LONG_OPTIONS.includes(word)) return word;
  const matches = LONG_OPTIONS.filter((option) => option.startsWith(word));
  return matches.length === 1 ? matches[0] : undefined;
}
