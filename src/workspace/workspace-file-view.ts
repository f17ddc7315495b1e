import { constants, type Stats } from "node:fs";
import { type FileHandle, lstat, mkdir, open, readFile, readlink, realpath } from "node:fs/promises";
import { basename, dirname, isAbsolute, join, relative, resolve, sep } from "node:path";
import { glob } from "tinyglobby";
import { type CredentialLists, expandHome, isInside } from "../permission/index.js";
import { type FileListOptions, type FileRead, type FileView, readHandle } from "../tool/builtin/index.js";
import { globRoot } from "../tool/builtin/tool-paths.js";
import { WorkspacePathError } from "./errors.js";
import { credentialFreeGitConfig, isGitConfigName } from "./git-config-sanitizer.js";
import { isHiddenPath } from "./hidden-paths.js";

const IGNORED = ["**/node_modules/**", "**/.git/**"];
const PROC_FD = "/proc/self/fd";

/**
 * A workspace's files as the file tools see them: only the root, and nothing its sandbox hides.
 *
 * - Paths resolve against the root; one that leaves it, lexically or through a symlink, is refused,
 *   and so is a `..` that follows a symlink (`link/../x` would climb from the link's target).
 * - Files are opened with O_NOFOLLOW at their real path, after checking the real path of the parent
 *   and of the file; the opened descriptor's own path is checked again (a link swapped in between
 *   the check and the open is caught).
 * - A file with more than one hard link is refused: it may be a secret's other name.
 * - The hidden list (the sandbox policy's `hiddenFiles` / `hiddenDirectories`) is checked on the
 *   lexical and on the real path: hidden paths cannot be read, written or listed.
 * - A git config holding credentials reads as the sandbox shows it (without them) and cannot be
 *   written (writing the copy back would drop them).
 */
export class WorkspaceFileView implements FileView {
  readonly kind = "workspace";

  /** `root` must be a real (symlink-free) absolute path. */
  constructor(
    readonly root: string,
    readonly hidden: CredentialLists,
  ) {
    if (!isAbsolute(root)) throw new TypeError(`WorkspaceFileView: root must be absolute, got "${root}"`);
  }

  get searchExclusions(): readonly string[] {
    const entries = [...this.hidden.files, ...this.hidden.directories];
    return [...entries.map((entry) => (entry.includes("/") ? `**/${entry}` : entry)), "node_modules"];
  }

  async resolve(path: string, base: string): Promise<string> {
    if (path.includes("\0")) throw new WorkspacePathError(path, "a workspace path cannot contain a NUL byte");
    const expanded = expandHome(path);
    const raw = isAbsolute(expanded) ? expanded : `${base}${sep}${expanded}`;
    await this.#refuseDotDotAfterLink(path, raw);
    const absolute = resolve(raw);
    if (!isInside(absolute, this.root))
      throw new WorkspacePathError(path, `${path} is outside the workspace ${this.root}`);
    this.#refuseHidden(path, absolute);
    const real = await realOfNearestExisting(absolute);
    if (!isInside(real, this.root))
      throw new WorkspacePathError(
        path,
        `${path} leads outside the workspace ${this.root} through a symlink`,
      );
    this.#refuseHidden(path, real);
    return absolute;
  }

  async read(absolute: string): Promise<FileRead> {
    const real = await this.#checkedReal(absolute, await realpath(absolute));
    // O_NONBLOCK: a FIFO planted in the workspace must not hang the open (it is refused below).
    const handle = await open(real, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
    try {
      await this.#checkOpened(handle, absolute, real);
      const read = await readHandle(handle, absolute);
      const copy = this.#credentialFreeCopy(real, read.data);
      return copy === undefined ? read : { data: Buffer.from(copy), mtimeMs: read.mtimeMs };
    } finally {
      await handle.close();
    }
  }

  async write(absolute: string, data: string | Uint8Array): Promise<{ mtimeMs: number }> {
    await this.resolve(absolute, this.root);
    await mkdir(dirname(absolute), { recursive: true });
    const parent = await this.#checkedReal(dirname(absolute), await realpath(dirname(absolute)));
    const target = await this.#checkedReal(absolute, join(parent, basename(absolute)));
    const existing = isGitConfigName(basename(target))
      ? await readFile(target).catch(() => undefined)
      : undefined;
    if (existing && this.#credentialFreeCopy(target, existing) !== undefined)
      throw new WorkspacePathError(
        absolute,
        `${absolute} is a git config holding credentials; the file tools show it without them and cannot write it: change it on the host (git config)`,
      );
    const flags = constants.O_WRONLY | constants.O_CREAT | constants.O_NOFOLLOW | constants.O_NONBLOCK;
    const handle = await open(target, flags, 0o666);
    try {
      await this.#checkOpened(handle, absolute, target);
      await handle.truncate(0);
      await handle.writeFile(data);
      return { mtimeMs: (await handle.stat()).mtimeMs };
    } finally {
      await handle.close();
    }
  }

  async list(dir: string, pattern: string, options: FileListOptions = {}): Promise<string[]> {
    if (!isInside(resolve(globRoot(pattern, dir)), this.root))
      throw new WorkspacePathError(
        pattern,
        `the pattern ${pattern} reaches outside the workspace ${this.root}`,
      );
    const prune = [...this.hidden.directories, ...this.hidden.files].flatMap((entry) => [
      `**/${entry}`,
      `**/${entry}/**`,
    ]);
    const found = await glob(pattern, {
      cwd: dir,
      ignore: [...IGNORED, ...prune, ...(options.ignore ?? [])],
      dot: options.dot ?? true,
      followSymbolicLinks: false,
      absolute: true,
    });
    const shown: string[] = [];
    for (const file of found) {
      if (await this.#visible(file, false)) shown.push(relative(dir, file).split(sep).join("/"));
    }
    return shown.sort();
  }

  shows(absolute: string): Promise<boolean> {
    return this.#visible(absolute, true);
  }

  /** Inside the root and not hidden, lexically and really; with `file`, also a single-link file. */
  async #visible(absolute: string, file: boolean): Promise<boolean> {
    if (!isInside(absolute, this.root) || isHiddenPath(this.root, absolute, this.hidden)) return false;
    const real = await realpath(absolute).catch(() => undefined);
    if (real === undefined || !isInside(real, this.root) || isHiddenPath(this.root, real, this.hidden))
      return false;
    if (!file) return true;
    const info = await lstat(real).catch(() => undefined);
    if (info === undefined || (info.isFile() && info.nlink > 1)) return false;
    // A search would print the real lines of a git config holding credentials: it shows none.
    if (!info.isFile() || !isGitConfigName(basename(real))) return true;
    const data = await readFile(real).catch(() => undefined);
    return data !== undefined && this.#credentialFreeCopy(real, data) === undefined;
  }

  /** `real` (the real path of `absolute`, or where it will be created) when the view may use it. */
  async #checkedReal(absolute: string, real: string): Promise<string> {
    if (!isInside(real, this.root))
      throw new WorkspacePathError(
        absolute,
        `${absolute} leads outside the workspace ${this.root} through a symlink`,
      );
    this.#refuseHidden(absolute, absolute);
    this.#refuseHidden(absolute, real);
    return real;
  }

  /** The descriptor is the regular file checked (same path, one link), not something swapped in. */
  async #checkOpened(handle: FileHandle, absolute: string, real: string): Promise<void> {
    const info: Stats = await handle.stat();
    if (!info.isFile() && !info.isDirectory())
      throw new WorkspacePathError(
        absolute,
        `${absolute} is not a regular file; the file tools only read and write files`,
      );
    if (info.isFile() && info.nlink > 1)
      throw new WorkspacePathError(
        absolute,
        `${absolute} has ${info.nlink} hard links; the file tools refuse it, as another name of it may be a secret outside the workspace`,
      );
    const opened = await readlink(join(PROC_FD, String(handle.fd))).catch(() => undefined);
    if (opened !== undefined && opened !== real)
      throw new WorkspacePathError(
        absolute,
        `${absolute} changed while it was opened (now ${opened}); try again`,
      );
  }

  /** The sanitized text to show for a git config holding credentials at `real`, or undefined. */
  #credentialFreeCopy(real: string, data: Buffer): string | undefined {
    if (!isGitConfigName(basename(real))) return undefined;
    return credentialFreeGitConfig(relative(this.root, real).split(sep), data.toString("utf8"));
  }

  #refuseHidden(path: string, absolute: string): void {
    if (isHiddenPath(this.root, absolute, this.hidden))
      throw new WorkspacePathError(
        path,
        `${path} is hidden in this workspace (it looks like a credential); the tools cannot read, write or list it`,
      );
  }

  /** `link/../x` climbs from the link's target in the kernel but not in path.resolve: refuse it. */
  async #refuseDotDotAfterLink(path: string, raw: string): Promise<void> {
    const segments = raw.split(sep);
    if (!segments.includes("..")) return;
    let current: string = sep;
    let link: string | undefined;
    for (const segment of segments) {
      if (segment === "" || segment === ".") continue;
      if (segment === "..") {
        if (link !== undefined)
          throw new WorkspacePathError(
            path,
            `${path} uses .. after the symlink ${link}, which would climb from the link's target; name the file without ..`,
          );
        current = dirname(current);
        continue;
      }
      current = join(current, segment);
      const info = await lstat(current).catch(() => undefined);
      if (info?.isSymbolicLink()) link = current;
    }
  }
}

/** The real path of `absolute`, or of its nearest existing ancestor joined with the rest. */
async function realOfNearestExisting(absolute: string): Promise<string> {
  try {
    return await realpath(absolute);
  } catch {
    const parent = dirname(absolute);
    if (parent === absolute) return absolute;
    return join(await realOfNearestExisting(parent), basename(absolute));
  }
}
