import { type BigIntStats, constants, type Dirent } from "node:fs";
import { lstat, open, readdir, readlink } from "node:fs/promises";
import { type CredentialLists, isInside, matchingCredentialEntry } from "../permission/index.js";
import { credentialFreeGitConfig, isGitConfigName, isUnderGitDirectory } from "./git-config-sanitizer.js";
import { type SanitizedCopies, sanitizedCopies } from "./sanitized-copies.js";

/** What the sandbox covers inside a workspace, as absolute paths. */
export interface HiddenPaths {
  /** Credential files: `/dev/null` is bound over each. */
  files: string[];
  /** Credential directories, and directories that could not be read: an empty tmpfs over each. */
  directories: string[];
  /** Files shown as a read-only copy (git configs without their credentials): `copy` is bound over `path`. */
  replaced?: { path: string; copy: string }[];
}

/** Bounds of one scan; past any of them the scan fails (the command does not run). */
export interface ScanLimits {
  /** Directory entries looked at, node_modules and .git included (default 200,000). */
  maxEntries?: number;
  /** Directory levels below the root (default 64). */
  maxDepth?: number;
  /** Paths covered (default 4,096: each is a mount in every sandbox). */
  maxHidden?: number;
}

export interface HiddenPathScannerOptions {
  limits?: ScanLimits;
  /** Where sanitized copies are written (default: this process's private directory). */
  copies?: SanitizedCopies;
  /** The time in ns since the epoch (tests move it forward). */
  now?: () => bigint;
}

const CONCURRENCY = 16;
/** A listing is reused only for a directory unchanged for this long (ctime granularity, clock skew). */
const SETTLED_NS = 2_000_000_000n;
const MAX_CONFIG_BYTES = 1024 * 1024;
const NON_ASCII = /[\u0080-\uffff]/;
const strictUtf8 = new TextDecoder("utf-8", { fatal: true });
const lossyUtf8 = new TextDecoder("utf-8");

/** One directory as last read, with what it holds for the scan (names are raw: latin1 of the bytes). */
interface Listing {
  dev: bigint;
  ino: bigint;
  ctimeNs: bigint;
  mtimeNs: bigint;
  count: number;
  subdirectories: string[];
  files: string[];
  hiddenFiles: string[];
  hiddenDirectories: string[];
  gitConfigs: string[];
  /** Files named like the last part of an entry (`hosts.yml`, `pip.conf`) whose path does not match. */
  namesakes: string[];
}

interface Directory {
  /** The path's bytes as latin1, so a name that is not UTF-8 is walked exactly. */
  raw: string;
  /** The decoded names below the root, for matching. */
  segments: string[];
}

interface Found {
  files: string[];
  directories: string[];
  /** The directories covered because their path matches an entry (not unreadable ones). */
  named: string[];
  namesakes: string[];
  replaced: { path: string; copy: string }[];
  configs: { raw: string; segments: string[] }[];
  listings: { raw: string; listing: Listing }[];
}

/**
 * Finds what a sandbox over `root` must cover, on every command: files and directories the credential
 * lists name, at any depth (node_modules and .git included), and git configs holding credentials —
 * every `config` / `config.worktree` under a `.git` directory, and any other file of that name that
 * is a repository's config (a bare repository, or a `.git` renamed by a command), get a sanitized
 * read-only copy in their place.
 *
 * Every file of the workspace may have been written by an attacker, so the walk does not follow
 * symlinks, reads names as bytes (a name that is not UTF-8 is walked; covering one fails clearly), covers
 * a directory it cannot read with an empty tmpfs, covers the other names of a hard-linked secret,
 * keeps covering what it covered once when a parent is renamed, and fails past its bounds
 * (ScanLimits) instead of skipping what it did not see.
 *
 * Listings are cached per directory and reused while the directory's inode, ctime and mtime are
 * unchanged (any entry added, removed or renamed changes them; ctime cannot be set back) and it
 * settled over two seconds before it was read; so a repeated scan costs one lstat per directory.
 * BubblewrapRunner shares one scanner per workspace root and policy between its instances.
 */
export class HiddenPathScanner {
  readonly #rawRoot: string;
  readonly #lists: CredentialLists;
  readonly #tails: { files: readonly string[]; directories: readonly string[] };
  readonly #limits: Required<ScanLimits>;
  readonly #copies: SanitizedCopies;
  readonly #now: () => bigint;
  readonly #cache = new Map<string, Listing>();
  readonly #possible = { files: new Map<string, boolean>(), directories: new Map<string, boolean>() };
  /**
   * Identities (device:inode) of what an earlier scan covered by name. A command can rename a
   * directory above a covered path, so that an entry naming a parent too (`.config/gh`) stops
   * matching (`mv .config cfg`); what was covered once stays covered under its new path.
   */
  readonly #covered = new Set<string>();

  constructor(
    readonly root: string,
    lists: CredentialLists,
    options: HiddenPathScannerOptions = {},
  ) {
    this.#rawRoot = Buffer.from(root, "utf8").toString("latin1");
    this.#lists = lists;
    this.#tails = { files: lists.files.map(lastPart), directories: lists.directories.map(lastPart) };
    this.#limits = {
      maxEntries: options.limits?.maxEntries ?? 200_000,
      maxDepth: options.limits?.maxDepth ?? 64,
      maxHidden: options.limits?.maxHidden ?? 4096,
    };
    this.#copies = options.copies ?? sanitizedCopies;
    this.#now = options.now ?? (() => BigInt(Date.now()) * 1_000_000n);
  }

  async scan(): Promise<HiddenPaths> {
    if (this.#lists.files.length === 0 && this.#lists.directories.length === 0)
      return { files: [], directories: [], replaced: [] };
    const found: Found = {
      files: [],
      directories: [],
      named: [],
      namesakes: [],
      replaced: [],
      configs: [],
      listings: [],
    };
    let entries = 0;
    await drain([{ raw: this.#rawRoot, segments: [] }], async (dir: Directory, push) => {
      if (dir.segments.length > this.#limits.maxDepth)
        throw new Error(
          `the workspace ${this.root} has directories nested over ${this.#limits.maxDepth} levels deep ` +
            `(${lossy(dir.raw)}); the sandbox cannot check them for secret files`,
        );
      const listing = await this.#list(dir);
      if (listing === "gone") return;
      if (listing === "unreadable" || listing === "covered") return void found.directories.push(dir.raw);
      entries += listing.count;
      if (entries > this.#limits.maxEntries)
        throw new Error(
          `the workspace ${this.root} has over ${this.#limits.maxEntries} entries to scan for secret files ` +
            "(node_modules and .git included); remove what is not needed, raise the sandbox policy's " +
            "maxScanEntries, or set hiddenFiles: [] and hiddenDirectories: [] to skip the scan",
        );
      for (const name of listing.hiddenFiles) found.files.push(`${dir.raw}/${name}`);
      for (const name of listing.hiddenDirectories) found.named.push(`${dir.raw}/${name}`);
      for (const name of listing.namesakes) found.namesakes.push(`${dir.raw}/${name}`);
      for (const name of listing.gitConfigs)
        found.configs.push({ raw: `${dir.raw}/${name}`, segments: [...dir.segments, decodedName(name)] });
      found.listings.push({ raw: dir.raw, listing });
      for (const name of listing.subdirectories)
        push({ raw: `${dir.raw}/${name}`, segments: [...dir.segments, decodedName(name)] });
    });
    found.directories.push(...found.named);
    await this.#replaceGitConfigs(found);
    await this.#coverMovedAndLinked(found);
    const hidden = {
      files: found.files.map(mountPath),
      directories: found.directories.map(mountPath),
      replaced: found.replaced.map(({ path, copy }) => ({ path: mountPath(path), copy })),
    };
    const count = hidden.files.length + hidden.directories.length + hidden.replaced.length;
    if (count > this.#limits.maxHidden)
      throw new Error(
        `the workspace ${this.root} has ${count} secret-looking paths to cover, over the sandbox's ` +
          `limit of ${this.#limits.maxHidden}; remove them or set hiddenFiles: [] and hiddenDirectories: []`,
      );
    return hidden;
  }

  async #list(dir: Directory): Promise<Listing | "gone" | "unreadable" | "covered"> {
    const bytes = Buffer.from(dir.raw, "latin1");
    let info: BigIntStats;
    let dirents: Dirent[];
    try {
      info = await lstat(bytes, { bigint: true });
      if (!info.isDirectory()) return "gone";
      if (this.#covered.has(identity(info))) return "covered";
      const cached = this.#cache.get(dir.raw);
      if (cached && sameDirectory(cached, info)) return cached;
      dirents = (await readdir(bytes, { withFileTypes: true, encoding: "buffer" })) as unknown as Dirent[];
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      return code === "ENOENT" || code === "ENOTDIR" ? "gone" : "unreadable";
    }
    const listing = this.#classify(dir, info, dirents);
    if (this.#now() - info.ctimeNs > SETTLED_NS) this.#cache.set(dir.raw, listing);
    else this.#cache.delete(dir.raw);
    return listing;
  }

  #classify(dir: Directory, info: BigIntStats, dirents: Dirent[]): Listing {
    const listing: Listing = {
      dev: info.dev,
      ino: info.ino,
      ctimeNs: info.ctimeNs,
      mtimeNs: info.mtimeNs,
      count: dirents.length,
      subdirectories: [],
      files: [],
      hiddenFiles: [],
      hiddenDirectories: [],
      gitConfigs: [],
      namesakes: [],
    };
    for (const dirent of dirents) {
      const raw = (dirent.name as unknown as Buffer).toString("latin1");
      const name = decodedName(raw);
      if (dirent.isDirectory()) {
        if (this.#match("directories", dir.segments, name) === "path") listing.hiddenDirectories.push(raw);
        else listing.subdirectories.push(raw);
      } else if (dirent.isFile()) {
        listing.files.push(raw);
        const match = this.#match("files", dir.segments, name);
        if (match === "path") listing.hiddenFiles.push(raw);
        else if (isGitConfigName(name)) listing.gitConfigs.push(raw);
        if (match === "name") listing.namesakes.push(raw);
      }
    }
    return listing;
  }

  /**
   * `path` when `segments/name` matches an entry of a list, `name` when only the name matches an
   * entry's last part (`.config/gh` for a `gh` elsewhere), `none` otherwise (memoised by name).
   */
  #match(list: "files" | "directories", segments: readonly string[], name: string): "path" | "name" | "none" {
    const memo = this.#possible[list];
    const key = name.toLowerCase();
    let possible = memo.get(key);
    if (possible === undefined) {
      possible = matchingCredentialEntry([name], this.#tails[list]) !== undefined;
      if (memo.size > 100_000) memo.clear();
      memo.set(key, possible);
    }
    if (!possible) return "none";
    return matchingCredentialEntry([...segments, name], this.#lists[list]) !== undefined ? "path" : "name";
  }

  /**
   * Remembers what is covered by name; covers files named like an entry that were covered before
   * under another path (a parent renamed), and the other names of a hard-linked covered file.
   */
  async #coverMovedAndLinked(found: Found): Promise<void> {
    const stat = (raw: string) => lstat(Buffer.from(raw, "latin1"), { bigint: true }).catch(() => undefined);
    if (this.#covered.size > 100_000) this.#covered.clear();
    await eachLimited(found.namesakes, async (raw) => {
      const info = await stat(raw);
      if (info && this.#covered.has(identity(info))) found.files.push(raw);
    });
    const linked = new Set<string>();
    const covered = [...found.files, ...found.named, ...found.replaced.map((replaced) => replaced.path)];
    await eachLimited(covered, async (raw) => {
      const info = await stat(raw);
      if (info === undefined) return;
      if (!info.isFile() || !found.replaced.some((replaced) => replaced.path === raw))
        this.#covered.add(identity(info));
      if (info.isFile() && info.nlink > 1n) linked.add(identity(info));
    });
    if (linked.size === 0) return;
    const known = new Set(covered);
    const others = found.listings.flatMap(({ raw, listing }) =>
      listing.files.map((name) => `${raw}/${name}`).filter((path) => !known.has(path)),
    );
    await eachLimited(others, async (raw) => {
      const info = await stat(raw);
      if (info && linked.has(identity(info))) found.files.push(raw);
    });
  }

  /** Git configs with credentials get a sanitized copy; one that cannot be checked is covered. */
  async #replaceGitConfigs(found: Found): Promise<void> {
    if (found.configs.length > 0 && isInside(this.#copies.directory, this.root))
      throw new Error(
        `the sandbox's copies directory ${this.#copies.directory} is inside the workspace ${this.root}; ` +
          "set TMPDIR to a directory outside it",
      );
    await eachLimited(found.configs, async ({ raw, segments }) => {
      const text = await readConfigFile(raw);
      if (text === "absent") return;
      if (text === "unchecked") {
        if (isUnderGitDirectory(segments)) found.files.push(raw);
        return;
      }
      const copy = credentialFreeGitConfig(segments, text);
      if (copy !== undefined) found.replaced.push({ path: raw, copy: this.#copies.copyOf(copy) });
    });
  }
}

/**
 * A config file's text, read without following a symlink and checked to be the file at that path;
 * `absent` when there is no regular file there, `unchecked` when it is too large or unreadable or
 * was swapped while it was opened.
 */
async function readConfigFile(raw: string): Promise<string | "absent" | "unchecked"> {
  const bytes = Buffer.from(raw, "latin1");
  const flags = constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK;
  const handle = await open(bytes, flags).catch((error: NodeJS.ErrnoException) => error);
  if (!("fd" in handle))
    return ["ELOOP", "ENOENT", "ENOTDIR"].includes(handle.code ?? "") ? "absent" : "unchecked";
  try {
    const info = await handle.stat();
    if (!info.isFile()) return "absent";
    if (info.size > MAX_CONFIG_BYTES) return "unchecked";
    const opened = await readlink(`/proc/self/fd/${handle.fd}`, { encoding: "buffer" }).catch(
      () => undefined,
    );
    if (opened === undefined || !opened.equals(bytes)) return "unchecked";
    const buffer = Buffer.alloc(MAX_CONFIG_BYTES + 1);
    const { bytesRead } = await handle.read(buffer, 0, buffer.length, 0);
    return bytesRead > MAX_CONFIG_BYTES ? "unchecked" : buffer.subarray(0, bytesRead).toString("utf8");
  } catch {
    return "unchecked";
  } finally {
    await handle.close();
  }
}

function identity(info: BigIntStats): string {
  return `${info.dev}:${info.ino}`;
}

function sameDirectory(cached: Listing, info: BigIntStats): boolean {
  return (
    cached.dev === info.dev &&
    cached.ino === info.ino &&
    cached.ctimeNs === info.ctimeNs &&
    cached.mtimeNs === info.mtimeNs
  );
}

function lastPart(entry: string): string {
  return (
    entry
      .split("/")
      .filter((part) => part !== "")
      .at(-1) ?? entry
  );
}

/** A raw (latin1) name as text for matching: UTF-8, invalid bytes replaced. */
function decodedName(raw: string): string {
  return NON_ASCII.test(raw) ? lossyUtf8.decode(Buffer.from(raw, "latin1")) : raw;
}

function lossy(raw: string): string {
  return JSON.stringify(decodedName(raw));
}

/** A raw path as bubblewrap takes it; a path that is not UTF-8 cannot be passed, so it fails. */
function mountPath(raw: string): string {
  if (!NON_ASCII.test(raw)) return raw;
  try {
    return strictUtf8.decode(Buffer.from(raw, "latin1"));
  } catch {
    throw new Error(
      `the workspace holds a secret-looking path whose name is not valid UTF-8 (${lossy(raw)}); ` +
        "the sandbox cannot cover it: rename it",
    );
  }
}

/** Runs `work` over a queue it may add to, `CONCURRENCY` at a time; the first failure rejects. */
function drain<T>(
  initial: readonly T[],
  work: (item: T, push: (item: T) => void) => Promise<void>,
): Promise<void> {
  return new Promise((resolve, reject) => {
    const queue = [...initial];
    const push = (item: T) => void queue.push(item);
    let active = 0;
    let failed = false;
    const pump = () => {
      if (failed) return;
      if (queue.length === 0 && active === 0) return resolve();
      while (active < CONCURRENCY && queue.length > 0) {
        active++;
        work(queue.pop()!, push).then(
          () => {
            active--;
            pump();
          },
          (error: unknown) => {
            failed = true;
            reject(error);
          },
        );
      }
    };
    pump();
  });
}

function eachLimited<T>(items: readonly T[], work: (item: T) => Promise<void>): Promise<void> {
  return drain(items, (item) => work(item));
}
