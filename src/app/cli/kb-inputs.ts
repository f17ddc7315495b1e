import { lstat, readdir, stat } from "node:fs/promises";
import { basename, join, relative, resolve, sep } from "node:path";
import picomatch from "picomatch";

/** One file to add: where it is, and the name its citations show (relative to what was named). */
export interface KbInputFile {
  path: string;
  source: string;
}

/** An argument that named nothing that can be added, and why. */
export interface KbInputProblem {
  arg: string;
  message: string;
}

const GLOB_CHARS = /[*?[\]{}]/;

/** Every regular file below `dir`, hidden names (`.git`, `.env`) and symbolic links skipped, sorted. */
async function walk(dir: string): Promise<string[]> {
  const found: string[] = [];
  const entries = await readdir(dir, { withFileTypes: true });
  for (const entry of entries.sort((a, b) => a.name.localeCompare(b.name))) {
    if (entry.name.startsWith(".")) continue;
    const path = join(dir, entry.name);
    if (entry.isDirectory()) found.push(...(await walk(path)));
    else if (entry.isFile()) found.push(path);
  }
  return found;
}

/** `docs/**\/*.md` → `docs`: the directories before the first part with a glob character. */
function globBase(pattern: string): string {
  const parts = pattern.split(/[\\/]/);
  const at = parts.findIndex((part) => GLOB_CHARS.test(part));
  const base = parts.slice(0, at).join("/");
  return base === "" ? (pattern.startsWith("/") ? "/" : ".") : base;
}

const toPosix = (path: string) => path.split(sep).join("/");

/**
 * What `kb add` arguments name: a file (cited by its name), a directory (every file below it,
 * recursively, hidden ones skipped, cited relative to it) or a quoted glob (`"docs/**\/*.md"`,
 * matched below its fixed prefix, hidden names not matched, cited relative to that prefix). An
 * argument that names nothing is a problem, reported beside the files the others found.
 */
export async function expandKbInputs(args: readonly string[]): Promise<{
  files: KbInputFile[];
  problems: KbInputProblem[];
}> {
  const files: KbInputFile[] = [];
  const problems: KbInputProblem[] = [];
  for (const arg of args) {
    try {
      const info = await stat(arg).catch(() => undefined);
      if (info?.isFile()) {
        files.push({ path: arg, source: basename(arg) });
      } else if (info?.isDirectory()) {
        const below = await walk(arg);
        if (below.length === 0)
          problems.push({ arg, message: "the directory holds no files (hidden ones are skipped)" });
        for (const path of below) files.push({ path, source: toPosix(relative(arg, path)) });
      } else if (GLOB_CHARS.test(arg)) {
        const base = globBase(arg);
        const isMatch = picomatch(toPosix(relative(base, resolve(arg)) || arg), { dot: false });
        const root = await lstat(base).catch(() => undefined);
        const matched = root?.isDirectory()
          ? (await walk(base)).filter((path) => isMatch(toPosix(relative(base, path))))
          : [];
        if (matched.length === 0) problems.push({ arg, message: "the pattern matches no file" });
        for (const path of matched) files.push({ path, source: toPosix(relative(base, path)) });
      } else {
        problems.push({ arg, message: "no such file or directory" });
      }
    } catch (error) {
      problems.push({ arg, message: (error as Error).message });
    }
  }
  return { files, problems };
}
