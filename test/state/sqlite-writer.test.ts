import { execFile } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import type { SqliteDatabase } from "../../src/state/sqlite/sqlite-driver.js";
import { SqliteWriter } from "../../src/state/sqlite/sqlite-writer.js";
import { openTestDatabase, scalar } from "../support/sqlite-file.js";

const dir = mkdtempSync(join(tmpdir(), "agentscope-writer-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

let n = 0;
const open: Array<{ db: SqliteDatabase; writer: SqliteWriter }> = [];
afterEach(async () => {
  for (const { db, writer } of open.splice(0)) {
    await writer.close();
    db.close();
  }
});

/** A WAL database with a table `kv (k TEXT PRIMARY KEY, v INTEGER)` and its writer. */
async function setUp(inWorker: boolean) {
  const file = join(dir, `w${++n}.db`);
  const db = await openTestDatabase(file);
  db.exec("PRAGMA journal_mode = WAL");
  db.exec("CREATE TABLE kv (k TEXT PRIMARY KEY, v INTEGER NOT NULL)");
  const writer = new SqliteWriter(db, inWorker ? { workerFile: file } : {});
  open.push({ db, writer });
  const insert = writer.prepare("INSERT INTO kv (k, v) VALUES (?, ?)");
  const bump = writer.prepare("UPDATE kv SET v = v + 1 WHERE k = ? RETURNING v");
  const value = (k: string) => db.prepare<[string], { v: number }>("SELECT v FROM kv WHERE k = ?").get(k)?.v;
  return { db, writer, insert, bump, value };
}

for (const inWorker of [false, true]) {
  describe(`SqliteWriter ${inWorker ? "with a worker thread" : "in this thread"}`, () => {
    it("answers each write (rows changed, or a RETURNING's first column) and this connection reads what it wrote", async () => {
      const { writer, insert, bump, value } = await setUp(inWorker);
      expect(writer.inWorker).toBe(inWorker);
      expect(
        await writer.write([
          { statement: insert, args: ["a", 1] },
          { statement: bump, args: ["a"] },
          { statement: bump, args: ["missing"] },
        ]),
      ).toEqual([1, 2, null]);
      expect(value("a")).toBe(2);
      expect(await writer.run(bump, "a")).toBe(3); // one write on its own
    });

    it("commits the calls of one loop turn together: a failing statement rolls back every one of them", async () => {
      const { writer, insert, value } = await setUp(inWorker);
      await writer.write([{ statement: insert, args: ["taken", 1] }]);
      const [good, bad] = await Promise.allSettled([
        writer.write([{ statement: insert, args: ["fresh", 1] }]),
        writer.write([{ statement: insert, args: ["taken", 2] }]),
      ]);
      expect(bad).toMatchObject({ status: "rejected", reason: { code: "SQLITE_CONSTRAINT_PRIMARYKEY" } });
      expect(good.status).toBe("rejected");
      expect(value("fresh")).toBeUndefined();
      // the next turn's calls commit on their own
      expect(await writer.write([{ statement: insert, args: ["fresh", 3] }])).toEqual([1]);
      expect(value("fresh")).toBe(3);
    });

    it("refuses SQL that does not prepare, at once", async () => {
      const { writer } = await setUp(inWorker);
      expect(() => writer.prepare("INSERT INTO nowhere VALUES (?)")).toThrow(/no such table: nowhere/);
    });
  });
}

describe("SqliteWriter's worker", () => {
  it("if it stops, the writes in flight fail saying so and later ones run in this thread", async () => {
    const { db, writer, insert, value } = await setUp(true);
    // A temporary table exists on this connection only: the worker cannot prepare a statement on it and dies.
    db.exec("CREATE TEMP TABLE mine (x INTEGER)");
    const doomed = writer.prepare("INSERT INTO mine (x) VALUES (?)");
    const inFlight = writer.write([{ statement: doomed, args: [1] }]);
    await expect(inFlight).rejects.toThrow(
      /SQLite writer worker stopped .*no such table: mine.*writes go on in this thread/,
    );
    expect(writer.inWorker).toBe(false);
    expect(await writer.write([{ statement: insert, args: ["after", 1] }])).toEqual([1]);
    expect(await writer.write([{ statement: doomed, args: [2] }])).toEqual([1]);
    expect(value("after")).toBe(1);
  });

  it("close waits for the writes in flight", async () => {
    const { writer, insert, value } = await setUp(true);
    const writes = Array.from({ length: 50 }, (_, k) =>
      writer.write([{ statement: insert, args: [`k${k}`, k] }]),
    );
    await new Promise((resolve) => setImmediate(resolve)); // sent
    await writer.close();
    expect((await Promise.all(writes)).flat()).toEqual(Array(50).fill(1));
    expect(value("k49")).toBe(49);
  });

  it("keeps the process alive while a write is in flight, and not once it is done", async () => {
    const { writer, insert } = await setUp(true);
    await writer.write([{ statement: insert, args: ["warm", 1] }]); // the worker has started
    const ports = () => process.getActiveResourcesInfo().filter((r) => r === "MessagePort").length;
    const idle = ports();
    const write = writer.write([{ statement: insert, args: ["k", 1] }]);
    await new Promise((resolve) => setImmediate(resolve)); // sent, not answered yet
    expect(ports()).toBe(idle + 1);
    await write;
    expect(ports()).toBe(idle);
  });

  // Flags a worker cannot take (V8's) once made `new Worker` throw; --input-type=module (on the
  // command line or in NODE_OPTIONS) makes the worker's eval'd text a module.
  it.each([
    ["--input-type=module", ["--input-type=module"], {}],
    ["V8 flags", ["--input-type=module", "--max-old-space-size=512", "--stack-size=2000"], {}],
    ["NODE_OPTIONS=--input-type=module", [], { NODE_OPTIONS: "--input-type=module" }],
  ])(
    "writes in its worker in a process started with %s, which then exits on its own",
    async (_name, flags, env) => {
      const file = join(dir, `alive-${++n}.db`);
      const script = `
      import { openSqlite } from ${JSON.stringify(join(process.cwd(), "src/state/sqlite/sqlite-driver.ts"))};
      import { SqliteWriter } from ${JSON.stringify(join(process.cwd(), "src/state/sqlite/sqlite-writer.ts"))};
      const db = await openSqlite(${JSON.stringify(file)}, "a test");
      db.exec("PRAGMA journal_mode = WAL");
      db.exec("CREATE TABLE kv (k TEXT PRIMARY KEY, v INTEGER NOT NULL)");
      const writer = new SqliteWriter(db, { workerFile: ${JSON.stringify(file)} });
      const insert = writer.prepare("INSERT INTO kv (k, v) VALUES (?, ?)");
      // not closed: once the write is done, the idle worker must not keep the process alive
      void writer.write([{ statement: insert, args: ["last", 7] }]).then(() => console.log("written, in the worker:", writer.inWorker));
    `;
      const { stdout } = await promisify(execFile)(
        process.execPath,
        ["--import", "tsx", ...flags, "-e", script],
        {
          timeout: 20_000,
          env: { ...process.env, ...env },
        },
      );
      expect(stdout.trim()).toBe("written, in the worker: true");
      const db = await openTestDatabase(file);
      expect(scalar(db, "SELECT v FROM kv WHERE k = 'last'")).toBe(7);
      db.close();
    },
  );
});
