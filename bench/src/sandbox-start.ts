/**
 * What the bubblewrap sandbox costs per command: wall time of `true` run N times (a) on the host
 * with `bash -c`, (b) as a bare `bwrap <the workspace's arguments> true`, (c) through
 * BubblewrapRunner.run (hidden-path scan, pids cgroup, ulimits, then bwrap), with and without a
 * process limit. Prints median and p95 per way. Needs bwrap; never run in CI.
 *
 *   node --import tsx bench/src/sandbox-start.ts [runs=200]
 */
import { execFile } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { promisify } from "node:util";
import { localProcessRunner } from "../../src/tool/builtin/index.js";
import type { ProcessRunner } from "../../src/tool/index.js";
import { bubblewrapArgs } from "../../src/workspace/bubblewrap-args.js";
import { BubblewrapRunner, resolveSandboxPolicy } from "../../src/workspace/index.js";
import { fmt, median, percentile } from "./stats.js";

const run = promisify(execFile);
const runs = Number(process.argv[2] ?? 200);
const root = mkdtempSync(join(tmpdir(), "agentscope-sandbox-bench-"));
// A small tree, like a fresh session's workspace: the hidden-path scan walks it on every command.
for (let i = 0; i < 20; i++) {
  mkdirSync(join(root, `dir${i}`), { recursive: true });
  writeFileSync(join(root, `dir${i}`, "file.txt"), "x");
}

async function time(label: string, once: () => Promise<unknown>): Promise<void> {
  for (let i = 0; i < 10; i++) await once(); // warm-up
  const samples: number[] = [];
  for (let i = 0; i < runs; i++) {
    const start = performance.now();
    await once();
    samples.push(performance.now() - start);
  }
  const sorted = [...samples].sort((a, b) => a - b);
  console.log(`${label.padEnd(44)} median ${fmt(median(sorted))} ms   p95 ${fmt(percentile(sorted, 95))} ms`);
}

async function drain(runner: ProcessRunner): Promise<void> {
  const signal = new AbortController().signal;
  for await (const _ of runner.run({
    command: "true",
    cwd: root,
    timeoutMs: 10_000,
    maxOutputChars: 1000,
    signal,
  })) {
  }
}

const policy = resolveSandboxPolicy({});
const args = bubblewrapArgs(policy, { root, cwd: root, hidden: { files: [], directories: [] } });
console.log(`${runs} runs each of \`true\`, workspace ${root}`);
try {
  await time("host: bash -c true", () => run("bash", ["-c", "true"]));
  await time("bare: bwrap <workspace args> true", () => run("bwrap", [...args, "true"]));
  await time("BubblewrapRunner (maxProcesses: null)", () =>
    drain(new BubblewrapRunner(root, { maxProcesses: null })),
  );
  await time("BubblewrapRunner (default: pids cgroup)", () => drain(new BubblewrapRunner(root)));
  await time("localProcessRunner (host, for comparison)", () => drain(localProcessRunner()));
} finally {
  rmSync(root, { recursive: true, force: true });
}
