import { existsSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { bashTool } from "../../../src/tool/builtin/index.js";
import { run, tempDir, toolContext } from "./helpers.js";

const { dir, cleanup } = tempDir();
afterAll(cleanup);

describe("Bash runs real processes", () => {
  it("runs in the first working directory and returns stdout and stderr", async () => {
    const output = await run(bashTool(), { command: "pwd; echo oops >&2" }, toolContext(dir));
    expect(output).toBe(`${dir}\noops\n`);
  });

  it("reports a non-zero exit code", async () => {
    expect(await run(bashTool(), { command: "echo hi; exit 3" }, toolContext(dir))).toBe(
      "hi\n\n[exit code 3]",
    );
  });

  it("streams output as it comes, before the command ends", async () => {
    // The command waits for a file the test writes only after it has read the first line: without
    // streaming, the first read would never come.
    const go = join(dir, "go");
    const stream = bashTool().call(
      { command: `echo first; while [ ! -e ${go} ]; do sleep 0.02; done; echo second` },
      toolContext(dir),
    ) as AsyncIterable<string>;
    const iterator = stream[Symbol.asyncIterator]();
    const first = await iterator.next();
    expect(first.value).toBe("first\n");
    writeFileSync(go, "");
    let rest = "";
    for (let next = await iterator.next(); !next.done; next = await iterator.next()) rest += next.value;
    expect(rest).toBe("second\n");
  });

  it("kills the whole process group on timeout", async () => {
    const marker = join(dir, "after-timeout");
    const started = Date.now();
    const output = await run(
      bashTool({ timeoutMs: 300 }),
      { command: `(sleep 1; touch ${marker}) & sleep 5` },
      toolContext(dir),
    );
    expect(Date.now() - started).toBeLessThan(4000); // well before the 5 s sleep ends
    expect(output).toMatch(/timed out after 300 ms/);
    await new Promise((resolve) => setTimeout(resolve, 1200));
    expect(existsSync(marker)).toBe(false);
  });

  it("honours a shorter timeout from the model but never a longer one", async () => {
    const output = await run(
      bashTool({ timeoutMs: 300 }),
      { command: "sleep 3", timeoutMs: 60_000 },
      toolContext(dir),
    );
    expect(output).toMatch(/timed out after 300 ms/);
  });

  it("stops at the output limit and says so", async () => {
    const output = String(
      await run(bashTool({ maxOutputChars: 1000 }), { command: "yes" }, toolContext(dir)),
    );
    expect(output.startsWith("y\ny\n")).toBe(true);
    expect(output).toMatch(/output limit of 1000 characters reached/);
    expect(output.length).toBeLessThan(1200);
  });

  it("kills the process group when the signal aborts and rethrows the reason", async () => {
    const controller = new AbortController();
    const marker = join(dir, "after-abort");
    const started = Date.now();
    setTimeout(() => controller.abort(new Error("user interrupt")), 200);
    await expect(
      run(
        bashTool(),
        { command: `(sleep 1; touch ${marker}) & sleep 5` },
        toolContext(dir, { signal: controller.signal }),
      ),
    ).rejects.toThrow("user interrupt");
    expect(Date.now() - started).toBeLessThan(4000); // well before the 5 s sleep ends
    await new Promise((resolve) => setTimeout(resolve, 1200));
    expect(existsSync(marker)).toBe(false);
  });
});
