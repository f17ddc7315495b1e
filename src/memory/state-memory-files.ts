import type { AgentStateStore } from "../state/index.js";
import { type MemoryEntry, type MemoryFiles, shownPath } from "./memory-files.js";
import { scopeKey } from "./scope.js";
import { StateDocument } from "./state-document.js";
import type { MemoryScope } from "./types.js";

/** The stored shape: file path → text. Directories are implied by the paths of the files in them. */
interface FilesDocument {
  files: Record<string, string>;
}

function parseDocument(value: unknown): FilesDocument {
  const doc = value as Partial<FilesDocument> | null;
  if (typeof doc !== "object" || doc === null || typeof doc.files !== "object" || doc.files === null) {
    throw new TypeError("memory files document: expected { files }");
  }
  return { files: { ...doc.files } };
}

const isBelow = (path: string, dir: string) => dir === "" || path.startsWith(`${dir}/`);

function kindIn(doc: FilesDocument, path: string): "file" | "directory" | undefined {
  if (path === "") return "directory";
  if (Object.hasOwn(doc.files, path)) return "file";
  const below = (p: string) => isBelow(p, path);
  return Object.keys(doc.files).some(below) ? "directory" : undefined;
}

/**
 * A memory directory kept in the state store (one document per scope), for the service: every
 * replica sees the same notes, and concurrent writes are compare-and-set. No path can reach another
 * scope's document: the scope picks the document, the path only a key inside it.
 */
export function stateMemoryFiles(store: AgentStateStore, scope: MemoryScope): MemoryFiles {
  const doc = new StateDocument<FilesDocument>(
    store,
    `memory-files/${scopeKey(scope)}`,
    () => ({ files: {} }),
    parseDocument,
  );
  return {
    async kind(path) {
      return kindIn(await doc.read(), path);
    },

    async list(dir) {
      const current = await doc.read();
      if (kindIn(current, dir) !== "directory") return [];
      const entries = new Map<string, MemoryEntry>();
      const addParents = (path: string) => {
        const parts = path.split("/");
        for (let i = 1; i < parts.length; i++) {
          const parent = parts.slice(0, i).join("/");
          if (isBelow(parent, dir)) entries.set(parent, { path: parent, kind: "directory" });
        }
      };
      for (const [path, text] of Object.entries(current.files)) {
        if (!isBelow(path, dir)) continue;
        entries.set(path, { path, kind: "file", size: Buffer.byteLength(text) });
        addParents(path);
      }
      return [...entries.values()].sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
    },

    async read(path) {
      const current = await doc.read();
      return Object.hasOwn(current.files, path) ? current.files[path] : undefined;
    },

    async write(path, content) {
      await doc.update((current) => {
        if (kindIn(current, path) === "directory") throw new Error(`${shownPath(path)} is a directory`);
        const parts = path.split("/");
        for (let i = 1; i < parts.length; i++) {
          const parent = parts.slice(0, i).join("/");
          if (Object.hasOwn(current.files, parent))
            throw new Error(`${shownPath(parent)} is a file, not a directory`);
        }
        current.files[path] = content;
      });
    },

    async delete(path) {
      return doc.update((current) => {
        const kind = kindIn(current, path);
        if (kind === undefined) return false;
        if (kind === "file") {
          delete current.files[path];
          return true;
        }
        for (const file of Object.keys(current.files)) if (isBelow(file, path)) delete current.files[file];
        return true;
      });
    },

    async rename(from, to) {
      await doc.update((current) => {
        const kind = kindIn(current, from);
        if (kind === undefined) throw new Error(`${shownPath(from)} does not exist`);
        if (kindIn(current, to) !== undefined) {
          throw new Error(`${shownPath(to)} already exists; delete it first or choose another name`);
        }
        if (kind === "file") {
          current.files[to] = current.files[from]!;
          delete current.files[from];
          return;
        }
        const moved = (p: string) => (p === from ? to : `${to}${p.slice(from.length)}`);
        for (const file of Object.keys(current.files)) {
          if (!isBelow(file, from)) continue;
          current.files[moved(file)] = current.files[file]!;
          delete current.files[file];
        }
      });
    },
  };
}
