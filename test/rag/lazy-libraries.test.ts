import { readdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import { expect, it } from "vitest";

const LIBRARIES = [
  "unpdf",
  "mammoth",
  "exceljs",
  "officeparser",
  "js-tiktoken",
  // better-sqlite3 is not here: the SQLite vector store opens its file through the state's SQLite
  // driver (better-sqlite3 or node:sqlite), which imports it on first use (test/state/lazy-drivers).
  "sqlite-vec",
  "pg",
  "@lancedb/lancedb",
  "apache-arrow",
];

async function sourcesUnder(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { withFileTypes: true, recursive: true });
  return entries.filter((e) => e.isFile() && e.name.endsWith(".ts")).map((e) => join(e.parentPath, e.name));
}

it("importing agentscope/rag loads no reader or store library: each is imported on first use", async () => {
  const root = join(import.meta.dirname, "../../src/rag");
  const offenders: string[] = [];
  for (const file of await sourcesUnder(root)) {
    const text = await readFile(file, "utf8");
    for (const library of LIBRARIES) {
      // A static value import (type-only imports are erased); dynamic import() is what we want.
      const pattern = new RegExp(`^import (?!type )[^;]*from "${library.replace("/", "\\/")}";`, "m");
      if (pattern.test(text)) offenders.push(`${file}: ${library}`);
    }
  }
  expect(offenders).toEqual([]);
  // And the dynamic imports are really there.
  const all = (await Promise.all((await sourcesUnder(root)).map((f) => readFile(f, "utf8")))).join("\n");
  for (const library of LIBRARIES) expect(all, library).toContain(`import("${library}")`);
});
