import { execFile } from "node:child_process";
import { join } from "node:path";
import { promisify } from "node:util";
import { expect, it } from "vitest";

const run = promisify(execFile);
const root = join(import.meta.dirname, "../..");

it("examples/memory.ts: a preference stated in the first session is used in the second, offline", async () => {
  const { stdout } = await run(process.execPath, ["--import", "tsx", "examples/memory.ts"], {
    cwd: root,
    timeout: 30_000,
  });
  expect(stdout).toContain("remembered: Prefers answers in French");
  expect(stdout).toContain("session 2 hint › - Prefers answers in French");
  expect(stdout).toContain("session 2 › Voici une recette simple");
}, 40_000);
