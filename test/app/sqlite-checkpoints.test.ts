import { existsSync, mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, expect, it } from "vitest";
import { createEvent } from "../../src/event/index.js";
import { sqliteBackend } from "../../src/state/sqlite/sqlite-backend.js";

const dir = mkdtempSync(join(tmpdir(), "agentscope-wal-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const size = (path: string) => (existsSync(path) ? statSync(path).size : 0);

it("moves the WAL into the database file from a worker, never from the service's connection", async () => {
  const file = join(dir, "state.db");
  const backend = await sqliteBackend(file, { maxEventsPerSession: 100_000 });
  try {
    const before = size(file);
    // ~0.4 MB of events, more in the WAL: under the 1,000-page (4 MiB) autocheckpoint, so only the worker can move it
    const text = "x".repeat(1_000);
    for (let batch = 0; batch < 4; batch++) {
      await backend.events.append(
        "s1",
        Array.from({ length: 100 }, (_, k) =>
          createEvent("CUSTOM", { replyId: "r", name: `e${batch}-${k}`, value: text }),
        ),
      );
    }
    const wal = size(`${file}-wal`);
    expect(wal).toBeGreaterThan(400_000);
    expect(wal).toBeLessThan(4_000_000);
    await expect.poll(() => size(file), { timeout: 5000 }).toBeGreaterThan(before + 300_000);
    expect(await backend.events.read("s1", 395, 10)).toHaveLength(5);
  } finally {
    await backend.close();
  }
  expect(size(`${file}-wal`)).toBe(0); // closed cleanly: everything is in the database file
});
