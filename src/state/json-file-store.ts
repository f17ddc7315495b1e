import { randomBytes } from "node:crypto";
import { mkdir, open, readdir, readFile, rename, unlink } from "node:fs/promises";
import { join, resolve } from "node:path";
import { ValidationError } from "../message/index.js";
import type { AgentState } from "./agent-state.js";
import { type FileLockOptions, withFileLock } from "./file-lock.js";
import { localPath } from "./local-path.js";
import { compareSessionIds, readListOptions, toPage } from "./session-paging.js";
import { assertSessionId, decodeState, encodeState } from "./state-codec.js";
import type {
  AgentStateStore,
  ListOptions,
  SaveOptions,
  SessionPage,
  SessionSummary,
  StoredState,
} from "./store.js";
import { StateConflictError } from "./store-errors.js";
import { type StoreScheme, splitStoreUrl } from "./store-family.js";

export interface JsonFileStateStoreOptions {
  /** Directory holding one `<session id>.json` per session; created when missing. */
  directory: string;
  lock?: FileLockOptions;
}

const MAX_FILE_STEM = 200;
const HEADER = /^\{"version":(\d+),"updatedAt":"([^"\\]+)",/;

/** Session id -> file stem: `[a-z0-9_-]` kept, every other byte as `%XX` (safe on case-insensitive disks). */
export function fileStem(sessionId: string): string {
  let out = "";
  for (const byte of Buffer.from(sessionId, "utf8")) {
    const ch = String.fromCharCode(byte);
    out += /[a-z0-9_-]/.test(ch) ? ch : `%${byte.toString(16).toUpperCase().padStart(2, "0")}`;
  }
  if (out.length > MAX_FILE_STEM) {
    throw new TypeError(
      `session id ${JSON.stringify(sessionId.slice(0, 40))}... is too long for JsonFileStateStore (encoded file name over ${MAX_FILE_STEM} characters); use shorter ids or another store`,
    );
  }
  return out;
}

/** File stem -> session id; undefined for a file this store did not name. */
function sessionIdOf(stem: string): string | undefined {
  try {
    const sessionId = decodeURIComponent(stem);
    return sessionId !== "" && fileStem(sessionId) === stem ? sessionId : undefined;
  } catch {
    return undefined;
  }
}

async function fsyncPath(path: string): Promise<void> {
  const handle = await open(path, "r").catch(() => undefined);
  if (!handle) return;
  await handle.sync().catch(() => {}); // directories cannot be synced on every platform
  await handle.close();
}

/**
 * One JSON file per session under a directory: `{"version","updatedAt","state"}`. Saves write a temp
 * file, fsync it and rename it over the old one (a crash leaves the old or the new file, never half of
 * one); compare-and-set holds a per-session lock file, so it is safe across processes.
 */
export class JsonFileStateStore implements AgentStateStore {
  readonly directory: string;
  readonly #lock: FileLockOptions;
  #ready: Promise<unknown> | undefined;

  constructor(options: JsonFileStateStoreOptions | string) {
    const opts = typeof options === "string" ? { directory: options } : options;
    this.directory = resolve(opts.directory);
    this.#lock = opts.lock ?? {};
  }

  #init(): Promise<unknown> {
    this.#ready ??= mkdir(this.directory, { recursive: true });
    return this.#ready;
  }

  #path(sessionId: string): string {
    assertSessionId(sessionId);
    return join(this.directory, `${fileStem(sessionId)}.json`);
  }

  async #readFile(
    sessionId: string,
    path: string,
  ): Promise<{ version: number; updatedAt: string; state: unknown } | undefined> {
    let text: string;
    try {
      text = await readFile(path, "utf8");
    } catch (error) {
      if ((error as { code?: string }).code === "ENOENT") return undefined;
      throw error;
    }
    const what = `stored AgentState of session ${JSON.stringify(sessionId)}`;
    let file: { version?: unknown; updatedAt?: unknown; state?: unknown };
    try {
      file = JSON.parse(text);
    } catch (error) {
      throw new ValidationError(what, "", `${path} is not JSON (${(error as Error).message})`);
    }
    if (!Number.isSafeInteger(file?.version) || (file.version as number) < 1) {
      throw new ValidationError(what, "version", `${path} has no valid version`);
    }
    return { version: file.version as number, updatedAt: String(file.updatedAt), state: file.state };
  }

  async #currentVersion(sessionId: string, path: string): Promise<number> {
    const header = await this.#readHeader(path);
    if (header) return header.version;
    return (await this.#readFile(sessionId, path))?.version ?? 0;
  }

  async #readHeader(path: string): Promise<{ version: number; updatedAt: string } | undefined> {
    const handle = await open(path, "r").catch(() => undefined);
    if (!handle) return undefined;
    try {
      const { buffer, bytesRead } = await handle.read({ buffer: Buffer.alloc(128), position: 0 });
      const match = HEADER.exec(buffer.toString("utf8", 0, bytesRead));
      return match ? { version: Number(match[1]), updatedAt: match[2]! } : undefined;
    } finally {
      await handle.close();
    }
  }

  async load(sessionId: string): Promise<StoredState | undefined> {
    assertSessionId(sessionId);
    await this.#init();
    const file = await this.#readFile(sessionId, this.#path(sessionId));
    return file && { state: decodeState(sessionId, file.state), version: file.version };
  }

  async save(sessionId: string, state: AgentState, options: SaveOptions): Promise<{ version: number }> {
    const json = encodeState(sessionId, state, options);
    const path = this.#path(sessionId);
    await this.#init();
    return withFileLock(
      `${path}.lock`,
      async () => {
        const actual = await this.#currentVersion(sessionId, path);
        if (actual !== options.expectedVersion) {
          throw new StateConflictError(sessionId, options.expectedVersion, actual);
        }
        const version = actual + 1;
        const body = `{"version":${version},"updatedAt":${JSON.stringify(new Date().toISOString())},"state":${json}}`;
        const temp = `${path}.${randomBytes(6).toString("hex")}.tmp`;
        const handle = await open(temp, "w");
        try {
          await handle.writeFile(body, "utf8");
          await handle.sync();
        } finally {
          await handle.close();
        }
        try {
          await rename(temp, path);
        } catch (error) {
          await unlink(temp).catch(() => {});
          throw error;
        }
        await fsyncPath(this.directory);
        return { version };
      },
      this.#lock,
    );
  }

  async delete(sessionId: string): Promise<boolean> {
    const path = this.#path(sessionId);
    await this.#init();
    return withFileLock(
      `${path}.lock`,
      async () => {
        try {
          await unlink(path);
        } catch (error) {
          if ((error as { code?: string }).code === "ENOENT") return false;
          throw error;
        }
        await fsyncPath(this.directory);
        return true;
      },
      this.#lock,
    );
  }

  async list(options?: ListOptions): Promise<SessionPage> {
    const { limit, after } = readListOptions(options);
    await this.#init();
    const ids = (await readdir(this.directory))
      .filter((name) => name.endsWith(".json"))
      .map((name) => sessionIdOf(name.slice(0, -".json".length)))
      .filter((id): id is string => id !== undefined && (after === undefined || id > after))
      .sort(compareSessionIds);
    const fetched: SessionSummary[] = [];
    for (const sessionId of ids) {
      if (fetched.length > limit) break;
      const path = this.#path(sessionId);
      const summary = (await this.#readHeader(path)) ?? (await this.#readFile(sessionId, path));
      if (summary) fetched.push({ sessionId, version: summary.version, updatedAt: summary.updatedAt });
    }
    return toPage(fetched, limit);
  }

  async close(): Promise<void> {}
}

/** JSON files, one per session: agent state only. */
export const fileScheme: StoreScheme & { noBackend: string } = {
  schemes: ["file"],
  example: "file:./dir",
  async openStore(url) {
    const { rest } = splitStoreUrl(url);
    if (!rest) throw new TypeError(`createStateStore: "${url}" names no directory (e.g. file:./sessions)`);
    return new JsonFileStateStore(localPath(rest));
  },
  noBackend:
    "JSON files keep agent state (createStateStore) but cannot back the service, which also needs an event log, run leases and a session directory",
};
