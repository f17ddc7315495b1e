import { execFile } from "node:child_process";
import { promisify } from "node:util";
import { expect, it } from "vitest";

const run = promisify(execFile);

/** Runs a module in a fresh Node and returns the database drivers it loaded (CommonJS cache). */
async function driversLoadedBy(code: string): Promise<string[]> {
  const script = `${code}
const { createRequire } = await import("node:module");
const cache = createRequire(import.meta.url).cache;
const drivers = ["better-sqlite3", "ioredis", "pg", "mysql2"].filter((name) =>
  Object.keys(cache).some((path) => path.includes(\`/node_modules/\${name}/\`)));
process.stdout.write(JSON.stringify(drivers));`;
  const { stdout } = await run(process.execPath, ["--import", "tsx", "--input-type=module", "-e", script]);
  return JSON.parse(stdout);
}

it("importing agentscope or agentscope/state loads no database driver until a store needs one", async () => {
  expect(
    await driversLoadedBy('await import("./src/index.ts"); await import("./src/state/index.ts");'),
  ).toEqual([]);
  expect(
    await driversLoadedBy(
      'const { SqliteStateStore } = await import("./src/state/index.ts"); await new SqliteStateStore(":memory:").init();',
    ),
  ).toEqual(["better-sqlite3"]);
}, 30_000);
