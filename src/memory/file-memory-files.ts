import { constants } from "node:fs";
import { lstat, mkdir, open, readdir, realpath, rename, rm } from "node:fs/promises";
import { join } from "node:path";
import { type MemoryEntry, type MemoryFiles, MemoryPathError, shownPath } from "./memory-files.js";

/**
 * A memory directory on the local file system. Nothing outside `root` is ever touched: every path
 * is checked component by component and a symbolic link anywhere below the root is refused (links
 * are not followed, not even to places inside the root); files are opened with O_NOFOLLOW so a link
 * planted at the file between the check and the open is refused too (a parent swapped for a link in
 * that window is not: keep the directory writable by this process only). The root is created when
 * missing.
 */
export function fileMemoryFiles(root: string): MemoryFiles {
  let realRoot: Promise<string> | undefined;
  const base = () => {
    realRoot ??= mkdir(root, { recursive: true }).then(() => realpath(root));
    return realRoot;
  };

  /** The absolute path of `relative`, after checking that no existing component of it is a link. */
  const resolve = async (relative: string): Promise<string> => {
    const root = await base();
    let current = root;
    for (const segment of relative === "" ? [] : relative.split("/")) {
      current = join(current, segment);
      const stats = await lstat(current).catch(() => undefined);
      if (stats === undefined) break; // nothing deeper exists either
      if (stats.isSymbolicLink()) {
        throw new MemoryPathError(
          `${shownPath(relative)}: a symbolic link is in the way; memory paths do not follow links`,
        );
      }
    }
    return relative === "" ? root : join(root, ...relative.split("/"));
  };

  const kindAt = async (absolute: string): Promise<"file" | "directory" | undefined> => {
    const stats = await lstat(absolute).catch(() => undefined);
    if (stats?.isFile()) return "file";
    if (stats?.isDirectory()) return "directory";
    return undefined;
  };

  return {
    async kind(path) {
      return kindAt(await resolve(path));
    },

    async list(dir) {
      const start = await resolve(dir);
      const entries: MemoryEntry[] = [];
      const walk = async (absolute: string, relative: string): Promise<void> => {
        for (const dirent of await readdir(absolute, { withFileTypes: true })) {
          const childRelative = relative === "" ? dirent.name : `${relative}/${dirent.name}`;
          const child = join(absolute, dirent.name);
          if (dirent.isDirectory()) {
            entries.push({ path: childRelative, kind: "directory" });
            await walk(child, childRelative);
          } else if (dirent.isFile()) {
            entries.push({ path: childRelative, kind: "file", size: (await lstat(child)).size });
          }
        }
      };
      if ((await kindAt(start)) === "directory") await walk(start, dir);
      return entries.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
    },

    async read(path) {
      const absolute = await resolve(path);
      if ((await kindAt(absolute)) !== "file") return undefined;
      const handle = await open(absolute, constants.O_RDONLY | constants.O_NOFOLLOW);
      try {
        return await handle.readFile("utf8");
      } finally {
        await handle.close();
      }
    },

    async write(path, content) {
      const absolute = await resolve(path);
      const parent = path.includes("/") ? path.slice(0, path.lastIndexOf("/")) : "";
      await mkdir(await resolve(parent), { recursive: true });
      // The parents now exist: check again that none of them is a link (one may have been planted).
      await resolve(path);
      const flags = constants.O_WRONLY | constants.O_CREAT | constants.O_TRUNC | constants.O_NOFOLLOW;
      const handle = await open(absolute, flags, 0o600);
      try {
        await handle.writeFile(content, "utf8");
      } finally {
        await handle.close();
      }
    },

    async delete(path) {
      const absolute = await resolve(path);
      if ((await lstat(absolute).catch(() => undefined)) === undefined) return false;
      await rm(absolute, { recursive: true, force: true });
      return true;
    },

    async rename(from, to) {
      const source = await resolve(from);
      const target = await resolve(to);
      if ((await lstat(target).catch(() => undefined)) !== undefined) {
        throw new Error(`${shownPath(to)} already exists; delete it first or choose another name`);
      }
      const parent = to.includes("/") ? to.slice(0, to.lastIndexOf("/")) : "";
      await mkdir(await resolve(parent), { recursive: true });
      await rename(source, target);
    },
  };
}
