import { afterAll, describe, expect, it } from "vitest";
import { reportMissingService } from "../support/services.js";
import { bubblewrapMissing, processesWith, runIn, sandbox, tempDir } from "./helpers.js";

const missing = await bubblewrapMissing();

describe("a bubblewrap sandbox enforces its limits", () => {
  if (missing) return reportMissingService(missing);
  const { dir: root, cleanup } = tempDir();
  afterAll(cleanup);

  it("kills the command at the wall-clock timeout", async () => {
    const output = await runIn(sandbox(root), "echo started; sleep 60; echo never", { timeoutMs: 300 });
    expect(output).toBe("started\n\n[timed out after 300 ms; the command was killed]");
  });

  it("kills the whole process tree, detached and re-parented children too", async () => {
    const marker = String(40_000 + Math.floor(Math.random() * 10_000));
    const command = `(sleep ${marker} &); (setsid sleep ${marker} &); nohup sleep ${marker} >/dev/null 2>&1 & echo started; sleep ${marker}`;
    const output = await runIn(sandbox(root), command, { timeoutMs: 3000 });
    expect(output).toContain("started");
    expect(output).toContain("[timed out after 3000 ms");
    expect(processesWith(`sleep ${marker}`)).toEqual([]);
  });

  it("kills the whole tree when the output limit is reached", async () => {
    const marker = String(50_000 + Math.floor(Math.random() * 10_000));
    const output = await runIn(sandbox(root), `(sleep ${marker} &); yes`, { maxOutputChars: 1000 });
    expect(output).toContain("[output limit of 1000 characters reached");
    expect(processesWith(`sleep ${marker}`)).toEqual([]);
  });

  it("stops a process at its CPU-time limit", async () => {
    const output = await runIn(sandbox(root, { cpuSeconds: 1 }), "while :; do :; done", {
      timeoutMs: 120_000,
    });
    expect(output).not.toContain("timed out");
    expect(output).toMatch(/\[exit code (152|SIGXCPU|SIGKILL|137)\]/);
  }, 130_000);

  it("refuses memory past its limit", async () => {
    const grab = `python3 -c "x = bytearray(300 * 1024 * 1024); print('allocated', len(x))"`;
    const limited = await runIn(sandbox(root, { memoryBytes: 128 * 1024 * 1024 }), grab);
    expect(limited).toContain("MemoryError");
    expect(limited).not.toContain("allocated");
    const roomy = await runIn(sandbox(root, { memoryBytes: 1024 * 1024 * 1024 }), grab);
    expect(roomy).toContain("allocated");
  });

  it("caps the processes of one command", async () => {
    const forks = `python3 -c "
import os, time
made = 0
try:
    for _ in range(64):
        if os.fork() == 0:
            time.sleep(5); os._exit(0)
        made += 1
except OSError:
    print('fork refused after', made)
"`;
    const output = await runIn(sandbox(root, { maxProcesses: 16 }), forks, { timeoutMs: 20_000 });
    expect(output).toMatch(/fork refused after \d+/);
    expect(Number(/after (\d+)/.exec(output)?.[1])).toBeLessThan(16);
  });

  it("caps the size of a file a command writes", async () => {
    const output = await runIn(
      sandbox(root, { maxFileBytes: 64 * 1024 }),
      "head -c 1000000 /dev/zero > big.bin; wc -c < big.bin",
    );
    expect(output).toMatch(/File size limit exceeded|exit code/);
    expect(output).toContain("65536");
  });
});
