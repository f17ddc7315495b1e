import { createHash } from "node:crypto";
import { lstatSync, readdirSync, readFileSync, readlinkSync } from "node:fs";
import { join, relative } from "node:path";

/** Every entry under some directories: its type, mode, size, mtime and content hash (or link target). */
export type Snapshot = ReadonlyMap<string, string>;

/** Walks the directories without following symlinks; keys are paths relative to `base`. */
export function snapshot(base: string, dirs: readonly string[]): Snapshot {
  const entries = new Map<string, string>();
  const visit = (path: string): void => {
    const stat = lstatSync(path, { throwIfNoEntry: false });
    const key = relative(base, path) || ".";
    if (!stat) {
      entries.set(key, "missing");
      return;
    }
    const common = `mode=${stat.mode.toString(8)} mtime=${stat.mtimeMs}`;
    if (stat.isSymbolicLink()) {
      entries.set(key, `link -> ${readlinkSync(path)}`);
    } else if (stat.isDirectory()) {
      entries.set(key, `dir ${common}`);
      for (const name of readdirSync(path).sort()) visit(join(path, name));
    } else if (stat.isFile()) {
      const hash = createHash("sha256").update(readFileSync(path)).digest("hex").slice(0, 16);
      entries.set(key, `file ${common} size=${stat.size} sha256=${hash}`);
    } else {
      entries.set(key, `special ${common}`);
    }
  };
  for (const dir of dirs) visit(dir);
  return entries;
}

/** What differs between two snapshots, one line per path: created, removed or changed (and how). */
export function changes(before: Snapshot, after: Snapshot): string[] {
  const out: string[] = [];
  for (const [path, was] of before) {
    const now = after.get(path);
    if (now === undefined) out.push(`removed ${path}`);
    else if (now !== was) out.push(`changed ${path} (${describeChange(was, now)})`);
  }
  for (const path of after.keys()) if (!before.has(path)) out.push(`created ${path}`);
  return out;
}

function describeChange(was: string, now: string): string {
  const a = new Map(was.split(" ").map((part) => part.split("=") as [string, string]));
  const b = new Map(now.split(" ").map((part) => part.split("=") as [string, string]));
  const differing = [...b.keys()].filter((key) => a.get(key) !== b.get(key));
  return differing.length > 0 ? differing.join(", ") : `${was} -> ${now}`;
}
