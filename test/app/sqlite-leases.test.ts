import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { sqliteBackend } from "../../src/state/sqlite/sqlite-backend.js";
import { openTestDatabase } from "../support/sqlite-file.js";

const dir = mkdtempSync(join(tmpdir(), "agentscope-leases-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Writes a lease row straight into the file, as another process (or a hand edit) would leave it. */
async function putLease(
  file: string,
  sessionId: string,
  owner: string,
  expiresAt: string | number,
): Promise<void> {
  const db = await openTestDatabase(file);
  db.prepare("INSERT OR REPLACE INTO agentscope_leases (session_id, owner, expires_at) VALUES (?, ?, ?)").run(
    sessionId,
    owner,
    expiresAt,
  );
  db.close();
}

describe("SQLite leases as stored", () => {
  it("a lease row whose expiry is not a time is taken over; another host's live lease is not", async () => {
    const file = join(dir, "leases.db");
    const backend = await sqliteBackend(file);
    try {
      await putLease(file, "edited", "otherhost:1:x", "never");
      await putLease(file, "live", "otherhost:1:y", Date.now() + 60_000);
      const taken = await backend.locks.acquire("edited");
      expect(taken).toBeDefined();
      expect(await taken!.renew()).toBe(true);
      expect(await backend.locks.acquire("live")).toBeUndefined();
      expect(await backend.locks.isHeld("live")).toBe(true);
      await taken!.release();
      expect(await backend.locks.isHeld("edited")).toBe(false);
    } finally {
      await backend.close();
    }
  });
});
