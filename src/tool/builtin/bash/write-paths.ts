/**
 * The files a command that changes things touches (`cp a b`, `chmod 600 f`,
 * `tar -xf a.tar -C dir`, `dd of=x`), and whether it is a plain file edit that accept_edits mode
 * may allow inside the working directories.
 */
export interface WriteTargets {
  paths: string[];
  /** Only creates, copies, moves, edits or removes the named files. */
  fileEdit: boolean;
}

/** Options taking a value, per program; `path` ones name a file. */
const VALUED: Record<string, { values: string; paths: string }> = {
  cp: { values: "-S --suffix", paths: "-t --target-directory" },
  mv: { values: "-S --suffix", paths: "-t --target-directory" },
  ln: { values: "-S --suffix", paths: "-t --target-directory" },
  install: { values: "-m -o -g -S --mode --owner --group --suffix", paths: "-t --target-directory" },
  mkdir: { values: "-m --mode --context", paths: "" },
  touch: { values: "-d -t --date", paths: "-r --reference" },
  truncate: { values: "-s --size", paths: "-r --reference" },
  chmod: { values: "", paths: "--reference" },
  chown: { values: "", paths: "--reference" },
  chgrp: { values: "", paths: "--reference" },
  tar: {
    values: "-b -H --format --exclude",
    paths: "-f -C -T -X --file --directory --files-from --exclude-from",
  },
  patch: { values: "-p -F -D", paths: "-i -o -d --input --output --directory" },
};

const EDITORS = new Set([
  "mkdir",
  "touch",
  "cp",
  "mv",
  "rm",
  "rmdir",
  "ln",
  "unlink",
  "tee",
  "install",
  "truncate",
]);
const FIRST_OPERAND_IS_NOT_A_PATH = new Set(["chmod", "chown", "chgrp"]);

/** Paths named by a command outside the read-only allow-list; undefined when the program is unknown here. */
export function writeTargets(program: string, args: readonly string[]): WriteTargets | undefined {
  if (program === "dd") {
    const paths = args.filter((arg) => /^(if|of)=/.test(arg)).map((arg) => arg.slice(3));
    return { paths, fileEdit: false };
  }
  const known = VALUED[program];
  if (!known && !EDITORS.has(program)) return undefined;
  const values = new Set((known?.values ?? "").split(" ").filter(Boolean));
  const pathOptions = new Set((known?.paths ?? "").split(" ").filter(Boolean));
  const paths: string[] = [];
  const operands: string[] = [];
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
    const eq = arg.indexOf("=");
    const long = arg.startsWith("--");
    // In a bundle (`-czf out.tgz`), the first option that takes a value takes the rest or the next word.
    const at = long
      ? -1
      : [...arg.slice(1)].findIndex((char) => pathOptions.has(`-${char}`) || values.has(`-${char}`));
    const name = long ? (eq === -1 ? arg : arg.slice(0, eq)) : `-${arg[at + 1] ?? ""}`;
    if (!pathOptions.has(name) && !values.has(name)) continue;
    const attached = long ? (eq === -1 ? "" : arg.slice(eq + 1)) : arg.slice(at + 2);
    const value = attached !== "" ? attached : args[++index];
    if (value === undefined) continue;
    if (pathOptions.has(name)) paths.push(value);
  }
  const files =
    FIRST_OPERAND_IS_NOT_A_PATH.has(program) && !args.some((arg) => arg.startsWith("--reference"))
      ? operands.slice(1)
      : operands;
  paths.push(...files.filter((file) => file !== "-"));
  return { paths, fileEdit: EDITORS.has(program) || FIRST_OPERAND_IS_NOT_A_PATH.has(program) };
}
