import { readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { dangerousPathReason } from "../../../permission/index.js";

/**
 * The first dangerous path a repository tracks (`.env.production`, `deploy/id_rsa`), read from its
 * `.git/index`: `git diff`, `git show`, `git grep` and `git log -p` print tracked files' contents
 * without naming them. Undefined when it tracks none; a `reason` when the index cannot be read.
 */
export function trackedDangerousPath(dotGit: string): { path: string } | { reason: string } | undefined {
  const file = join(dotGit, "index");
  let key: string;
  try {
    const stats = statSync(file);
    key = `${file}:${stats.ino}:${stats.size}:${stats.mtimeMs}`;
  } catch {
    return undefined;
  }
  const cached = cache.get(key);
  if (cached !== undefined) return cached.found;
  let found: { path: string } | { reason: string } | undefined;
  try {
    const names = indexNames(readFileSync(file));
    const path = names === undefined ? undefined : names.find((name) => dangerousPathReason(`/${name}`));
    found =
      names === undefined
        ? { reason: `${file} is not an index git version 2 to 4 writes` }
        : path
          ? { path }
          : undefined;
  } catch (error) {
    found = { reason: `${file} cannot be read (${error instanceof Error ? error.message : String(error)})` };
  }
  if (cache.size > 32) cache.clear();
  cache.set(key, { found });
  return found;
}

const cache = new Map<string, { found: { path: string } | { reason: string } | undefined }>();

/**
 * The paths of the repositories a repository embeds (gitlinks, mode 160000: submodules and
 * repositories added whole), read from its `.git/index`: `git status` and `git diff` run in each,
 * under that repository's own config. Empty without an index; a `reason` when it cannot be read.
 */
export function embeddedRepositories(dotGit: string): string[] | { reason: string } {
  const file = join(dotGit, "index");
  let key: string;
  let data: Buffer;
  try {
    const stats = statSync(file);
    key = `${file}:${stats.ino}:${stats.size}:${stats.mtimeMs}`;
    const cached = embeddedCache.get(key);
    if (cached !== undefined) return cached;
    data = readFileSync(file);
  } catch {
    return [];
  }
  const entries = indexEntries(data);
  const found =
    entries === undefined
      ? { reason: `${file} is not an index git version 2 to 4 writes` }
      : entries.filter((entry) => (entry.mode & 0o170000) === 0o160000).map((entry) => entry.name);
  if (embeddedCache.size > 32) embeddedCache.clear();
  embeddedCache.set(key, found);
  return found;
}

const embeddedCache = new Map<string, string[] | { reason: string }>();

/** The paths in a git index (versions 2, 3 and 4), or undefined when it is not one. */
function indexNames(data: Buffer): string[] | undefined {
  return indexEntries(data)?.map((entry) => entry.name);
}

/** The entries of a git index (versions 2, 3 and 4), or undefined when it is not one. */
function indexEntries(data: Buffer): { name: string; mode: number }[] | undefined {
  if (data.length < 12 || data.toString("latin1", 0, 4) !== "DIRC") return undefined;
  const version = data.readUInt32BE(4);
  if (version < 2 || version > 4) return undefined;
  const count = data.readUInt32BE(8);
  const names: { name: string; mode: number }[] = [];
  let at = 12;
  let previous = "";
  for (let entry = 0; entry < count; entry++) {
    const start = at;
    at += 60;
    if (at + 2 > data.length) return undefined;
    const mode = data.readUInt32BE(start + 24);
    const flags = data.readUInt16BE(at);
    at += 2;
    if (version >= 3 && flags & 0x4000) at += 2;
    let name: string;
    if (version === 4) {
      // A varint of bytes to drop from the previous name, then the rest, NUL-terminated.
      let strip = 0;
      let byte: number;
      do {
        if (at >= data.length) return undefined;
        byte = data[at++]!;
        strip = (strip << 7) | (byte & 0x7f);
        if (byte & 0x80) strip += 1;
      } while (byte & 0x80);
      const end = data.indexOf(0, at);
      if (end === -1 || strip > previous.length) return undefined;
      name = previous.slice(0, previous.length - strip) + data.toString("utf8", at, end);
      at = end + 1;
    } else {
      const end = data.indexOf(0, at);
      if (end === -1) return undefined;
      name = data.toString("utf8", at, end);
      // Entries are padded with NULs to a multiple of eight bytes.
      at = start + Math.ceil((end - start + 1) / 8) * 8;
    }
    names.push({ name, mode });
    previous = name;
  }
  return names;
}
