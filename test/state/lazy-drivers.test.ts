import { execFile } from "node:child_process";
import { promisify } from "node:util";
import { expect, it } from "vitest";

const run = promisify(execFile);

/**
 * In a fresh Node: import the root entry and agentscope/state, note the database drivers loaded
 * (they are CommonJS, so they show in the require cache), then open a SQLite store and note again.
 */
const script = `
const { createRequire } = await import("node:module");
const cache = createRequire(import.meta.url).cache;
const loaded = () => ["better-sqlite3", "ioredis", "pg", "mysql2"].filter((name) =>
  Object.keys(cache).some((path) => path.includes(\`/node_modules/\${name}/\`)));
await import("./src/index.ts");
const { SqliteStateStore } = await import("./src/state/index.ts");
const afterImport = loaded();
await new SqliteStateStore(":memory:").init();
process.stdout.write(JSON.stringify({ afterImport, afterOpen: loaded() }));`;

it("importing agentscope or agentscope/state loads no database driver until a store needs one", async () => {
  const { stdout } = await run(process.execPath, ["--import", "tsx", "--input-type=module", "-e", script]);
  // with AGENTSCOPE_SQLITE_DRIVER=node the store opens on node:sqlite, which is built in
  const sqliteDriver = process.env.AGENTSCOPE_SQLITE_DRIVER === "node" ? [] : ["better-sqlite3"];
  expect(JSON.parse(stdout)).toEqual({ afterImport: [], afterOpen: sqliteDriver });
}, 30_000);
