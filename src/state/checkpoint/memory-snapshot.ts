import type { MemoryWrite } from "./checkpoint.js";
import { CheckpointUnavailableError } from "./checkpoint-errors.js";
import { type CheckpointBlob, type CheckpointStore, getBlob } from "./checkpoint-store.js";
import { contentHash as sha256Hex } from "./content-hash.js";

/**
 * The memory directory a session's Memory tool writes (agentscope/memory's MemoryFiles has this
 * shape): paths relative to its root, `""` the root.
 */
export interface CheckpointMemory {
  list(dir: string): Promise<Array<{ path: string; kind: "file" | "directory" }>>;
  read(path: string): Promise<string | undefined>;
  write(path: string, content: string): Promise<void>;
  delete(path: string): Promise<boolean>;
}

/** Whether a rewind reverts the memory writes made after its checkpoint (`revert`) or leaves them (`keep`, the default). */
export type MemoryOnRewind = "keep" | "revert";

const encoder = new TextEncoder();
const decoder = new TextDecoder();

/** A Memory tool path as the model gave it (`/memories/a.md`, `a.md`) → relative to the memory root. */
export function memoryRelative(path: string): string {
  return path
    .trim()
    .replace(/^\/memories(?=\/|$)/, "")
    .split("/")
    .filter((segment) => segment !== "" && segment !== ".")
    .join("/");
}

/**
 * Stores the memory directory's files as blobs (content-addressed: a note unchanged across
 * checkpoints is stored once) and their list as one more blob (`path → hash`, JSON). Answers that
 * list's hash and the bytes newly stored.
 */
export async function snapshotMemory(
  store: CheckpointStore,
  sessionId: string,
  memory: CheckpointMemory,
): Promise<{ snapshot: string; addedBytes: number }> {
  const files: Record<string, string> = {};
  const blobs: CheckpointBlob[] = [];
  for (const entry of await memory.list("")) {
    if (entry.kind !== "file") continue;
    const text = await memory.read(entry.path);
    if (text === undefined) continue; // removed meanwhile
    const bytes = encoder.encode(text);
    const hash = sha256Hex(bytes);
    files[entry.path] = hash;
    blobs.push({ hash, bytes });
  }
  const list = encoder.encode(JSON.stringify(files));
  const snapshot = sha256Hex(list);
  blobs.push({ hash: snapshot, bytes: list });
  return { snapshot, addedBytes: await store.putBlobs(sessionId, blobs) };
}

/** The list of a memory snapshot: path → blob hash (every blob it names, for retention). */
export async function memoryFiles(
  store: CheckpointStore,
  sessionId: string,
  snapshot: string,
): Promise<Record<string, string>> {
  const bytes = await getBlob(store, sessionId, snapshot);
  if (!bytes) throw new CheckpointUnavailableError(`its memory snapshot ${snapshot.slice(0, 12)} is missing`);
  return JSON.parse(decoder.decode(bytes)) as Record<string, string>;
}

/**
 * Puts the paths `writes` wrote (and everything under them) back as the snapshot holds them: a file
 * written since is rewritten, one created since is deleted, one deleted since comes back. Other
 * paths of the directory (another session's notes) are left alone. Answers the paths changed.
 */
export async function revertMemoryWrites(
  store: CheckpointStore,
  sessionId: string,
  memory: CheckpointMemory,
  snapshot: string,
  writes: readonly MemoryWrite[],
): Promise<string[]> {
  const then = await memoryFiles(store, sessionId, snapshot);
  const roots = [
    ...new Set(
      writes.flatMap((write) => [write.path, write.newPath]).filter((p): p is string => p !== undefined),
    ),
  ].map(memoryRelative);
  if (roots.length === 0) return [];
  const under = (path: string) =>
    roots.some((root) => root === "" || path === root || path.startsWith(`${root}/`));
  const wanted = Object.entries(then).filter(([path]) => under(path));
  const contents = await store.getBlobs(
    sessionId,
    wanted.map(([, hash]) => hash),
  );
  for (const [path, hash] of wanted)
    if (!contents.has(hash))
      throw new CheckpointUnavailableError(`the memory file ${path} of its snapshot is missing`);
  const changed: string[] = [];
  for (const entry of await memory.list("")) {
    if (entry.kind !== "file" || !under(entry.path) || entry.path in then) continue;
    if (await memory.delete(entry.path)) changed.push(entry.path);
  }
  for (const [path, hash] of wanted) {
    const text = decoder.decode(contents.get(hash)!);
    if ((await memory.read(path)) === text) continue;
    await memory.write(path, text);
    changed.push(path);
  }
  return changed.sort();
}
