import { spawn } from "node:child_process";
import { accessSync, constants } from "node:fs";
import { stat } from "node:fs/promises";
import { basename, delimiter, dirname, join } from "node:path";
import type { FileView } from "./file-view.js";

export type GrepOutputMode = "content" | "files" | "count";

export interface GrepQuery {
  pattern: string;
  /** Absolute file or directory to search, already resolved by `view`. */
  target: string;
  glob?: string;
  ignoreCase: boolean;
  mode: GrepOutputMode;
  signal: AbortSignal;
  /** What the search may read and show: hidden paths and links out of it are skipped. */
  view: FileView;
}

/** Lines of `path:line:text` (content), `path` (files) or `path:count` (count), paths relative to the directory searched. */
export type GrepLines = string[];

const MAX_FILE_BYTES = 2 * 1024 * 1024;
let ripgrep: string | null | undefined;

/** The ripgrep executable on PATH, or null when there is none (looked up once). */
export function findRipgrep(): string | null {
  if (ripgrep !== undefined) return ripgrep;
  ripgrep = null;
  for (const dir of (process.env.PATH ?? "").split(delimiter)) {
    if (!dir) continue;
    const candidate = join(dir, process.platform === "win32" ? "rg.exe" : "rg");
    try {
      accessSync(candidate, constants.X_OK);
      ripgrep = candidate;
      break;
    } catch {}
  }
  return ripgrep;
}

/**
 * Searches with ripgrep (hidden files and .gitignored ones skipped, as rg does; symlinks not
 * followed). The view's exclusions keep rg out of credential paths, and every file it reports is
 * checked by the view again (a hard link or a link out of the root is dropped).
 */
export async function searchWithRipgrep(rg: string, query: GrepQuery): Promise<GrepLines> {
  const { cwd, path } = await searchRoot(query);
  const args = ["--color", "never", "--sort", "path", "--no-messages", "--no-follow", "--null"];
  if (query.mode === "content") args.push("--line-number", "--no-heading", "--with-filename");
  if (query.mode === "files") args.push("--files-with-matches");
  if (query.mode === "count") args.push("--count", "--with-filename");
  if (query.ignoreCase) args.push("--ignore-case");
  if (query.glob) args.push("--glob", query.glob);
  // A single file was checked by the view already (searchRoot); a directory search skips the exclusions.
  if (path === ".") for (const excluded of query.view.searchExclusions) args.push("--iglob", `!${excluded}`);
  args.push("--regexp", query.pattern, "--", path);
  const output = await new Promise<string>((resolve, reject) => {
    const child = spawn(rg, args, { cwd, stdio: ["ignore", "pipe", "pipe"], signal: query.signal });
    let out = "";
    let err = "";
    child.stdout.on("data", (data: Buffer) => {
      out += data.toString("utf8");
    });
    child.stderr.on("data", (data: Buffer) => {
      err += data.toString("utf8");
    });
    child.on("error", reject);
    child.on("close", (code) => {
      // 2 with "No files were searched": every file was filtered out (by the glob or the exclusions).
      if (code === 0 || code === 1 || (code === 2 && /no files were searched/i.test(err))) resolve(out);
      else reject(new Error(`ripgrep failed: ${err.trim() || `exit code ${code}`}`));
    });
  });
  const records = ripgrepRecords(output, query.mode);
  const shown = new Map<string, boolean>();
  const lines: GrepLines = [];
  for (const { file, rest } of records) {
    const name = file.replace(/^\.\//, "");
    let visible = shown.get(name);
    if (visible === undefined) {
      visible = await query.view.shows(join(cwd, name), { named: path !== "." });
      shown.set(name, visible);
    }
    if (visible) lines.push(rest === undefined ? name : `${name}:${rest}`);
  }
  return lines;
}

/** ripgrep's `--null` output as (file, rest) pairs: a file name never gets confused with its line. */
function ripgrepRecords(output: string, mode: GrepOutputMode): { file: string; rest?: string }[] {
  if (mode === "files") return output.split("\0").flatMap((file) => (file === "" ? [] : [{ file }]));
  return output
    .split("\n")
    .filter((line) => line !== "")
    .map((line) => {
      const at = line.indexOf("\0");
      return at === -1 ? { file: line } : { file: line.slice(0, at), rest: line.slice(at + 1) };
    });
}

/**
 * Searches in plain JavaScript: dot files, node_modules, binary files, files over 2 MB and whatever
 * the view hides or refuses (symlinks out, hard links) are skipped. Symlinked directories are not walked.
 */
export async function searchWithJs(query: GrepQuery): Promise<GrepLines> {
  let regex: RegExp;
  try {
    regex = new RegExp(query.pattern, query.ignoreCase ? "i" : "");
  } catch (error) {
    throw new Error(
      `invalid regular expression ${JSON.stringify(query.pattern)}: ${(error as Error).message}`,
    );
  }
  const { cwd, path } = await searchRoot(query);
  const files =
    path === "."
      ? await query.view.list(cwd, query.glob ?? "**/*", {
          dot: false,
          ignore: query.view.searchExclusions.flatMap((name) => [`**/${name}`, `**/${name}/**`]),
        })
      : [path];
  const lines: GrepLines = [];
  for (const file of files) {
    query.signal.throwIfAborted();
    const text = await readText(query.view, join(cwd, file), path !== ".");
    if (text === undefined) continue;
    let count = 0;
    for (const [index, line] of text.split(/\r?\n/).entries()) {
      if (!regex.test(line)) continue;
      count++;
      if (query.mode === "content") lines.push(`${file}:${index + 1}:${line}`);
      else if (query.mode === "files") break;
    }
    if (count > 0 && query.mode === "files") lines.push(file);
    if (count > 0 && query.mode === "count") lines.push(`${file}:${count}`);
  }
  return lines;
}

/** The directory the search runs in and what it searches there; a single file must be one the view shows. */
async function searchRoot(query: GrepQuery): Promise<{ cwd: string; path: string }> {
  const info = await stat(query.target).catch(() => {
    throw new Error(`${query.target} does not exist`);
  });
  if (info.isDirectory()) return { cwd: query.target, path: "." };
  if (!(await query.view.shows(query.target, { named: true })))
    throw new Error(`${query.target} cannot be searched: the file tools do not show it`);
  return { cwd: dirname(query.target), path: basename(query.target) };
}

/** A text file's content through the view, or undefined (refused, binary, too big, not a file). */
async function readText(view: FileView, path: string, named: boolean): Promise<string | undefined> {
  if (!(await view.shows(path, { named }))) return undefined;
  const info = await stat(path).catch(() => undefined);
  if (!info?.isFile() || info.size > MAX_FILE_BYTES) return undefined;
  const read = await view.read(path).catch(() => undefined);
  if (read === undefined) return undefined;
  if (read.data.subarray(0, 8192).includes(0)) return undefined;
  return read.data.toString("utf8");
}
