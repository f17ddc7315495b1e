import { execFile } from "node:child_process";
import { join } from "node:path";
import { promisify } from "node:util";
import { expect, it } from "vitest";

const run = promisify(execFile);
const root = join(import.meta.dirname, "../..");

it("examples/rag.ts indexes the document set and answers offline, citing the excerpt", async () => {
  const { stdout } = await run(process.execPath, ["--import", "tsx", "examples/rag.ts"], {
    cwd: root,
    timeout: 60_000,
  });
  expect(stdout).toContain("indexed error-codes.csv: 1 chunks");
  expect(stdout).toMatch(/search: .*ZX-81.*\n\s+[\d.]+\s+error-codes\.csv\n/);
  expect(stdout).toContain(
    "answer: code: ZX-81 | meaning: coolant valve stuck | action: close valve B and call the on-call engineer [1]",
  );
}, 90_000);
