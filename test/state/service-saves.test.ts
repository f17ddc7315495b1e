import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Redis } from "ioredis";
import pg from "pg";
import { afterAll, describe, expect, it } from "vitest";
import { createBackend } from "../../src/app/server/backend/create-backend.js";
import type { ServiceBackend } from "../../src/app/server/backend/types.js";
import { createEvent } from "../../src/event/index.js";
import { PostgresStateStore, RedisStateStore, SqliteStateStore } from "../../src/state/index.js";
import { missingService, reportMissingService, runName } from "../support/services.js";
import { openTestDatabase } from "../support/sqlite-file.js";
import { dropBackend } from "./drop-backend.js";
import { canonical, freshSession, playReply } from "./random-session.js";

const directory = mkdtempSync(join(tmpdir(), "agentscope-service-saves-"));
afterAll(() => rmSync(directory, { recursive: true, force: true }));

/** What the server holds for the save of `version` of the backend's store: "patch" with its bytes, or "snapshot". */
async function writtenBy(backend: ServiceBackend, url: string, sessionId: string, version: number) {
  const store = backend.store;
  if (store instanceof SqliteStateStore) {
    const db = await openTestDatabase(url.slice("sqlite:".length));
    try {
      const row = db
        .prepare<[string, number], { bytes: number }>(
          `SELECT length(CAST(patch AS BLOB)) AS bytes FROM ${store.table}_patches WHERE session_id = ? AND version = ?`,
        )
        .get(sessionId, version);
      return row ? { kind: "patch", bytes: row.bytes } : { kind: "snapshot" };
    } finally {
      db.close();
    }
  }
  if (store instanceof RedisStateStore) {
    const redis = new Redis(url);
    try {
      const bytes = await redis.hstrlen(store.stateKey(sessionId), `p:${version}`);
      return bytes > 0 ? { kind: "patch", bytes } : { kind: "snapshot" };
    } finally {
      await redis.quit();
    }
  }
  if (store instanceof PostgresStateStore) {
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    try {
      const { rows } = await client.query(
        `SELECT octet_length(patch) AS bytes FROM ${store.table}_patches WHERE session_id = $1 AND version = $2`,
        [sessionId, version],
      );
      return rows[0] ? { kind: "patch", bytes: Number(rows[0].bytes) } : { kind: "snapshot" };
    } finally {
      await client.end();
    }
  }
  throw new Error("not a store of this test");
}

const targets: Array<{ name: string; url: string; port?: number }> = [
  { name: "SQLite", url: `sqlite:${join(directory, "service.db")}` },
  { name: "Redis", url: "redis://127.0.0.1:6379", port: 6379 },
  { name: "PostgreSQL", url: "postgres://postgres@127.0.0.1:5432/test", port: 5432 },
];

for (const { name, url, port } of targets) {
  const missing = port === undefined ? undefined : await missingService(name, port);
  describe(`the ${name} service backend's saves (checkpoints and run ends)`, () => {
    if (missing) return reportMissingService(missing);
    const prefix = `${runName("svc")}_`;
    let backend: ServiceBackend;
    afterAll(async () => {
      await backend?.close();
      await dropBackend(url, prefix);
    });

    it("write patches of the reply in flight, not the session, and load back exactly", async () => {
      backend = await createBackend(url, { prefix });
      const sessionId = `svc-${runName("s")}`;
      const state = freshSession(sessionId);
      let version = (await backend.store.save(sessionId, state, { expectedVersion: 0 })).version;
      const late: number[] = [];
      for (let reply = 1; reply <= 120; reply++) {
        const lease = (await backend.locks.acquire(sessionId))!;
        let saves = 0;
        await playReply(state, reply, async (s) => {
          saves++;
          const events = [createEvent("TEXT_BLOCK_DELTA", { replyId: "r", blockId: "b", delta: "x" })];
          const save = { state: s, expectedVersion: version };
          const result =
            saves < 5
              ? await backend.checkpoint!({ sessionId, events, save, lease })
              : await backend.endRun!({ sessionId, events, save, endEvents: [], lease });
          if (result.saveError) throw result.saveError;
          version = result.version!;
          if (reply > 100)
            late.push(
              ((await writtenBy(backend, url, sessionId, version)) as { bytes?: number }).bytes ?? -1,
            );
        });
      }
      expect(JSON.stringify(state).length).toBeGreaterThan(50_000);
      expect(late.length).toBe(100);
      expect(late.filter((bytes) => bytes < 0).length, "snapshots among the last 100 saves").toBeLessThan(3);
      expect(Math.max(...late)).toBeLessThan(2_000);
      const loaded = await backend.store.load(sessionId);
      expect(loaded?.version).toBe(version);
      expect(canonical(loaded?.state)).toBe(canonical(state));
    }, 60_000);
  });
}
