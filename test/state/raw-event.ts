import { openTestDatabase } from "../support/sqlite-file.js";

/**
 * Writes an event log entry straight into a SQLite, Redis or PostgreSQL backend's storage, bypassing
 * the backend, as an edited or damaged row would be (tests of what the backends do with one).
 */
export async function appendRawEvent(
  url: string,
  prefix: string,
  sessionId: string,
  seq: number,
  text: string,
): Promise<void> {
  if (url.startsWith("sqlite:")) {
    const db = await openTestDatabase(url.slice("sqlite:".length));
    db.prepare(`INSERT INTO ${prefix}events (session_id, seq, event) VALUES (?, ?, ?)`).run(
      sessionId,
      seq,
      text,
    );
    db.close();
  } else if (url.startsWith("redis")) {
    const { Redis } = await import("ioredis");
    const redis = new Redis(url);
    await redis.xadd(`${prefix}events:${sessionId}`, `0-${seq}`, "event", text);
    await redis.quit();
  } else if (url.startsWith("postgres")) {
    const pg = await import("pg");
    const client = new pg.default.Client({ connectionString: url });
    await client.connect();
    await client.query(`INSERT INTO ${prefix}events (session_id, seq, event) VALUES ($1, $2, $3)`, [
      sessionId,
      seq,
      text,
    ]);
    await client.end();
  } else {
    throw new Error(`appendRawEvent: no raw access to ${url}`);
  }
}
