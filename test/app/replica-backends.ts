import { join } from "node:path";
import { missingService, runName } from "../support/services.js";

/** A store several service replicas share in a test: SQLite in a temporary folder, Redis, PostgreSQL. */
export interface ReplicaBackend {
  name: "SQLite" | "Redis" | "PostgreSQL";
  /** Why its server cannot be reached (pass to `reportMissingService`), undefined when it is up. */
  missing: string | undefined;
  /** The store URL; SQLite's file is `state.db` in `dir`. */
  store(dir: string): string;
  /** A table or key prefix of this test run's own. */
  prefix: string;
}

const KINDS = [
  {
    name: "SQLite",
    port: undefined,
    url: (dir: string) => `sqlite:${join(dir, "state.db")}`,
    separator: "_",
  },
  { name: "Redis", port: 6379, url: () => "redis://127.0.0.1:6379", separator: ":" },
  { name: "PostgreSQL", port: 5432, url: () => "postgres://postgres@127.0.0.1:5432/test", separator: "_" },
] as const;

/** The backends a multi-replica test runs on (all three unless `only` names some), each with a fresh prefix. */
export async function replicaBackends(
  tag: string,
  only?: ReplicaBackend["name"][],
): Promise<ReplicaBackend[]> {
  const kinds = KINDS.filter((kind) => !only || only.includes(kind.name));
  return Promise.all(
    kinds.map(async (kind) => ({
      name: kind.name,
      missing: kind.port ? await missingService(kind.name, kind.port) : undefined,
      store: kind.url,
      prefix: `${runName(tag)}${kind.separator}`,
    })),
  );
}

/** POSTs `body` as JSON to `path` on the server at `url`. */
export function postJson(url: string, path: string, body: unknown): Promise<Response> {
  return fetch(`${url}${path}`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body),
  });
}
