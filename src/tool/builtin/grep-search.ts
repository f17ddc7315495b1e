import { spawn } from "node:child_process";
import { accessSync, constants } from "node:fs";
import { open, readFile, stat } from "node:fs/promises";
import { basename, delimiter, dirname, join } from "node:path";
import { glob } from "tinyglobby";
import { DANGEROUS_DIRECTORIES, DANGEROUS_FILES, dangerousPathReason } from "../../permission/index.js";
import { IGNORED_DIRECTORIES } from "./glob.js";

export type GrepOutputMode = "content" | "files" | "count";

export interface GrepQuery {
  pattern: string;
  /** Absolute file or directory to search. */
  target: string;
  glob?: string;
  ignoreCase: boolean;
  mode: GrepOutputMode;
  signal: AbortSignal;
}

/** Lines of `path:line:text` (content), `path` (files) or `path:count` (count), paths relative to the directory searched. */
export type GrepLines = string[];

const MAX_FILE_BYTES = 2 * 1024 * 1024;
/** ripgrep globs a directory search always skips: dangerous files and folders, and node_modules. */
const EXCLUDED_FROM_SEARCH = [".env", ".env.*", ...DANGEROUS_FILES, ...DANGEROUS_DIRECTORIES, "node_modules"];
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

/** Searches with ripgrep (hidden files and .gitignored ones skipped, as rg does). */
export async function searchWithRipgrep(rg: string, query: GrepQuery): Promise<GrepLines> {
  const { cwd, path } = await searchRoot(query.target);
  const args = ["--color", "never", "--sort", "path", "--no-messages"];
  if (query.mode === "content") args.push("--line-number", "--no-heading", "--with-filename");
  if (query.mode === "files") args.push("--files-with-matches");
  if (query.mode === "count") args.push("--count", "--with-filename");
  if (query.ignoreCase) args.push("--ignore-case");
  if (query.glob) args.push("--glob", query.glob);
  for (const excluded of EXCLUDED_FROM_SEARCH) args.push("--glob", `!${excluded}`);
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
  return output
    .split("\n")
    .filter((line) => line !== "")
    .map((line) => line.replace(/^\.\//, ""));
}

/** Searches in plain JavaScript: hidden files, node_modules, binary and files over 2 MB are skipped. */
export async function searchWithJs(query: GrepQuery): Promise<GrepLines> {
  let regex: RegExp;
  try {
    regex = new RegExp(query.pattern, query.ignoreCase ? "i" : "");
  } catch (error) {
    throw new Error(
      `invalid regular expression ${JSON.stringify(query.pattern)}: ${(error as Error).message}`,
    );
  }
  const { cwd, path } = await searchRoot(query.target);
  const files =
    path === "."
      ? (await glob(query.glob ?? "**/*", { cwd, ignore: IGNORED_DIRECTORIES, dot: false }))
          .filter((file) => dangerousPathReason(join(cwd, file)) === undefined)
          .sort()
      : [path];
  const lines: GrepLines = [];
  for (const file of files) {
    query.signal.throwIfAborted();
    const text = await readText(join(cwd, file));
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

async function searchRoot(target: string): Promise<{ cwd: string; path: string }> {
  const info = await stat(target).catch(() => {
    throw new Error(`${target} does not exist`);
  });
  return info.isDirectory() ? { cwd: target, path: "." } : { cwd: dirname(target), path: basename(target) };
}

async function readText(path: string): Promise<string | undefined> {
  const info = await stat(path).catch(() => undefined);
  if (!info?.isFile() || info.size > MAX_FILE_BYTES) return undefined;
  const handle = await open(path, "r");
  try {
    const head = Buffer.alloc(Math.min(8192, info.size));
    await handle.read(head, 0, head.length, 0);
    if (head.includes(0)) return undefined;
  } finally {
    await handle.close();
  }
  return readFile(path, "utf8");
}
