import { execFile } from "node:child_process";
import { createRequire } from "node:module";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";
import {
  loadSqliteDriver,
  type SqliteDriverName,
  sqliteDriver,
} from "../../src/state/sqlite/sqlite-driver.js";

const run = promisify(execFile);
const require = createRequire(import.meta.url);

/** Whether a driver works in this Node: better-sqlite3's binary is built for one ABI only. */
function works(name: SqliteDriverName): boolean {
  try {
    if (name === "node:sqlite") require("node:sqlite");
    else new (require("better-sqlite3"))(":memory:").close();
    return true;
  } catch {
    return false;
  }
}
const usable = (["better-sqlite3", "node:sqlite"] as const).filter(works);
const hasNodeSqlite = works("node:sqlite");

/** Which driver a fresh process picks, or its error, with `env` and Node flags. */
async function pickedInChild(env: Record<string, string>, flags: string[] = []) {
  const script = `const { sqliteDriver } = await import(${JSON.stringify(
    fileURLToPath(new URL("../../src/state/sqlite/sqlite-driver.ts", import.meta.url)),
  )});
  sqliteDriver("SqliteStateStore").then((d) => console.log("picked " + d.name), (e) => console.log("error " + e.message));`;
  const { stdout } = await run(
    process.execPath,
    [...flags, "--import", "tsx", "--input-type=module", "--no-warnings", "-e", script],
    { env: { ...process.env, AGENTSCOPE_SQLITE_DRIVER: "", ...env }, timeout: 20_000 },
  );
  return stdout.trim();
}

it("uses the driver AGENTSCOPE_SQLITE_DRIVER asks for, else better-sqlite3 where it loads, else node:sqlite", async () => {
  const asked = process.env.AGENTSCOPE_SQLITE_DRIVER;
  const expected =
    asked === "node" || asked === "node:sqlite"
      ? "node:sqlite"
      : asked === "better-sqlite3" || works("better-sqlite3")
        ? "better-sqlite3"
        : "node:sqlite";
  expect((await sqliteDriver("a test")).name).toBe(expected);
});

describe("when better-sqlite3's native binary does not load (built for another Node)", () => {
  const broken = [
    "--require",
    fileURLToPath(new URL("./fixtures/broken-better-sqlite3.cjs", import.meta.url)),
  ];

  it(hasNodeSqlite
    ? "falls back to node:sqlite"
    : "says so, with the two ways out (rebuild it, or a Node with SQLite built in)", async () => {
    const picked = await pickedInChild({}, broken);
    if (hasNodeSqlite) expect(picked).toBe("picked node:sqlite");
    else
      expect(picked).toMatch(
        /^error SqliteStateStore: better-sqlite3 is installed but does not load on Node v[\d.]+ \(.*NODE_MODULE_VERSION.*\); run npm rebuild better-sqlite3, or use Node 22\.13 or newer/,
      );
  }, 30_000);
});

it("AGENTSCOPE_SQLITE_DRIVER=node on a Node without node:sqlite says which Node has it; an unknown value names the choices", async () => {
  if (!hasNodeSqlite)
    expect(await pickedInChild({ AGENTSCOPE_SQLITE_DRIVER: "node" })).toMatch(
      /^error Node v[\d.]+ has no node:sqlite \(it is built into Node 22\.13 and newer/,
    );
  expect(await pickedInChild({ AGENTSCOPE_SQLITE_DRIVER: "sqlite3" })).toBe(
    'error AGENTSCOPE_SQLITE_DRIVER=sqlite3: use "node" (Node\'s built-in node:sqlite), "better-sqlite3" or "auto"',
  );
}, 30_000);

for (const name of usable) {
  describe(`the ${name} driver`, () => {
    const open = async () => (await loadSqliteDriver(name, "a test")).open(":memory:");

    it("prepares, runs, gets and lists rows, and says which statements answer rows", async () => {
      const db = await open();
      expect(db.driver).toBe(name);
      db.exec("CREATE TABLE kv (k TEXT PRIMARY KEY, v INTEGER NOT NULL)");
      const insert = db.prepare<[string, number]>("INSERT INTO kv (k, v) VALUES (?, ?)");
      expect(insert.reader).toBe(false);
      expect(Number(insert.run("a", 1).changes)).toBe(1);
      insert.run("b", 2);
      const select = db.prepare<[number], { k: string; v: number }>(
        "SELECT k, v FROM kv WHERE v >= ? ORDER BY k",
      );
      expect(select.reader).toBe(true);
      expect({ ...select.get(2) }).toEqual({ k: "b", v: 2 });
      expect(select.all(0).map((row) => ({ ...row }))).toEqual([
        { k: "a", v: 1 },
        { k: "b", v: 2 },
      ]);
      expect(select.get(9)).toBeUndefined();
      expect(db.prepare("UPDATE kv SET v = v + 1 RETURNING v").reader).toBe(true);
      db.close();
    });

    it("loads a SQLite extension (sqlite-vec) into a database opened with extensions", async () => {
      const db = (await loadSqliteDriver(name, "a test")).open(":memory:", { extensions: true });
      (await import("sqlite-vec")).load(db);
      expect(Object.values(db.prepare("SELECT vec_version()").get() as object)[0]).toMatch(/^v\d/);
      db.close();
    });

    it("commits a transaction, rolls back one that throws, and names SQLite's error codes as better-sqlite3 does", async () => {
      const db = await open();
      db.exec("CREATE TABLE kv (k TEXT PRIMARY KEY)");
      const insert = db.prepare<[string]>("INSERT INTO kv (k) VALUES (?)");
      const count = () => (db.prepare("SELECT COUNT(*) AS n FROM kv").get() as { n: number }).n;
      db.transaction((k: string) => insert.run(k)).immediate("a");
      expect(count()).toBe(1);
      const failing = db.transaction(() => {
        insert.run("b");
        insert.run("a");
      });
      expect(failing).toThrow(expect.objectContaining({ code: "SQLITE_CONSTRAINT_PRIMARYKEY" }));
      expect(count()).toBe(1);
      db.close();
    });

    it("closes once and takes a second close as done (the service closes its backend and store on one file)", async () => {
      const db = await open();
      db.close();
      expect(() => db.close()).not.toThrow();
    });
  });
}

it.runIf(hasNodeSqlite)(
  "node:sqlite loads without its experimental warning, in the process and in a worker; other warnings still print",
  async () => {
    const modules = (path: string) =>
      JSON.stringify(fileURLToPath(new URL(`../../src/state/sqlite/${path}`, import.meta.url)));
    const script = `const { loadSqliteDriver } = await import(${modules("sqlite-driver.ts")});
    const { OPEN_DATABASE_SOURCE, startSqliteWorker } = await import(${modules("sqlite-worker-thread.ts")});
    (await loadSqliteDriver("node:sqlite", "test")).open(":memory:").close();
    const worker = startSqliteWorker(
      'const { parentPort, workerData } = require("node:worker_threads");' +
        OPEN_DATABASE_SOURCE +
        'openDatabase(1000).close(); parentPort.postMessage("opened");',
      "node:sqlite",
      { file: ":memory:" },
    );
    worker.ref();
    worker.once("message", (m) => { console.log(m); worker.terminate(); });
    process.emitWarning("a warning of the program's own", "ExperimentalWarning");`;
    const { stdout, stderr } = await run(
      process.execPath,
      ["--import", "tsx", "--input-type=module", "-e", script],
      { env: { ...process.env, AGENTSCOPE_SQLITE_DRIVER: "" }, timeout: 20_000 },
    );
    expect(stdout.trim()).toBe("opened");
    expect(stderr).not.toContain("SQLite is an experimental feature");
    expect(stderr).toContain("a warning of the program's own");
  },
  30_000,
);
