import { execFile } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, expect, it } from "vitest";

const dir = mkdtempSync(join(tmpdir(), "agentscope-sqlite-flags-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

// A service started as `node --max-old-space-size=... server.js`: the backend's worker threads (the
// writer, the WAL checkpointer) once failed to start with it, and the backend with them. And `close`
// once never resolved in a process with nothing else to do: it exited first (code 13 here, an
// unsettled top-level await), the worker threads being unreferenced.
it("the SQLite backend starts, writes and closes in a process started with V8 flags", async () => {
  const file = join(dir, "flags.db");
  const script = `
    import { sqliteBackend } from ${JSON.stringify(join(process.cwd(), "src/state/sqlite/sqlite-backend.ts"))};
    const backend = await sqliteBackend(${JSON.stringify(file)});
    const event = { id: "evt_1", createdAt: new Date().toISOString(), type: "REPLY_START", replyId: "r1", sessionId: "s1", name: "a" };
    const logged = await backend.events.append("s1", [event]);
    console.error("logged", logged.map((e) => e.seq).join(","));
    await backend.close();
    console.error("closed");
  `;
  // the markers go to stderr: V8's GC trace writes to stdout, and can share a line with them
  const { stderr } = await promisify(execFile)(
    process.execPath,
    ["--max-old-space-size=512", "--trace-gc-nvp", "--import", "tsx", "--input-type=module", "-e", script],
    { timeout: 20_000 },
  );
  expect(stderr.split("\n").filter((line) => /^(logged|closed)/.test(line))).toEqual(["logged 1", "closed"]);
});
