/**
 * What 100 checkpoints of a workspace where one file changes per reply cost each checkpoint store, in
 * bytes (docs/time-travel.md quotes it). Standalone, from the root:
 *   node --import tsx bench/src/checkpoint-storage.ts [--stores=memory,sqlite,redis,postgres]
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  type CheckpointStore,
  InMemoryCheckpointStore,
  PostgresCheckpointStore,
  RedisCheckpointStore,
  SqliteCheckpointStore,
} from "../../src/state/index.js";
import { measureCheckpointStorage } from "../../test/support/checkpoint-storage.js";

const wanted = (
  process.argv.find((arg) => arg.startsWith("--stores="))?.slice(9) ?? "memory,sqlite,redis,postgres"
).split(",");
const dir = mkdtempSync(join(tmpdir(), "agentscope-ckpt-bench-"));
const name = `bench_${process.pid}`;
const stores: Record<string, () => CheckpointStore> = {
  memory: () => new InMemoryCheckpointStore(),
  sqlite: () => new SqliteCheckpointStore({ path: join(dir, "c.db") }),
  redis: () => new RedisCheckpointStore({ prefix: `${name}:` }),
  postgres: () =>
    new PostgresCheckpointStore({ url: "postgres://postgres@127.0.0.1:5432/test", table: name }),
};
try {
  for (const kind of wanted) {
    const open = stores[kind];
    if (!open) throw new Error(`--stores: unknown store "${kind}" (have: ${Object.keys(stores).join(", ")})`);
    const store = open();
    const root = mkdtempSync(join(dir, "ws-"));
    const sessionId = `bench-${Date.now()}`;
    try {
      const f = await measureCheckpointStorage(store, sessionId, root);
      const extra = f.storedBytes - f.workspaceBytes - f.changedBytes - f.messageBytes;
      console.log(
        `${kind.padEnd(8)} ${f.checkpoints} checkpoints: stored ${f.storedBytes} B = workspace ${f.workspaceBytes} + changes ${f.changedBytes} + messages ${f.messageBytes} + trees/state ${extra} (${Math.round(extra / f.checkpoints)} B per checkpoint); one copy per checkpoint would be ${f.workspaceBytes * f.checkpoints} B`,
      );
      await store.deleteSession(sessionId);
    } catch (error) {
      console.log(`${kind.padEnd(8)} not measured: ${(error as Error).message}`);
    } finally {
      await store.close().catch(() => {});
    }
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
  if (wanted.includes("postgres")) {
    const pg = (await import("pg")).default;
    const client = new pg.Client({ connectionString: "postgres://postgres@127.0.0.1:5432/test" });
    await client
      .connect()
      .then(() => client.query(`DROP TABLE IF EXISTS ${name}_blobs, ${name}_records`))
      .catch(() => {})
      .finally(() => client.end());
  }
}
