/**
 * What the sandbox's hidden-path scan costs in a workspace with a node_modules the size of this
 * repository's (about 1,000 packages, 4,000 directories, 41,000 entries) and a git repository whose
 * config holds a token: a cold scan (a new runner's first command), a warm scan (the runner's cached
 * listings), and `true` through one BubblewrapRunner reused, as a session does. Needs bwrap for the
 * last row; never run in CI.
 *
 *   node --import tsx bench/src/hidden-path-scan.ts [packages=1000]
 */
import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { setTimeout as sleep } from "node:timers/promises";
import { DEFAULT_CREDENTIAL_LISTS } from "../../src/permission/index.js";
import { HiddenPathScanner } from "../../src/workspace/hidden-path-scanner.js";
import { BubblewrapRunner } from "../../src/workspace/index.js";
import { fmt, median, percentile } from "./stats.js";

const packages = Number(process.argv[2] ?? 1000);
const root = mkdtempSync(join(tmpdir(), "agentscope-scan-bench-"));
for (let p = 0; p < packages; p++) {
  const pkg = join(root, "node_modules", `pkg${p}`);
  for (const sub of ["lib", "test", "dist"]) {
    mkdirSync(join(pkg, sub), { recursive: true });
    for (let f = 0; f < 12; f++) writeFileSync(join(pkg, sub, `file${f}.js`), "x");
  }
  writeFileSync(join(pkg, "package.json"), "{}");
  writeFileSync(join(pkg, "README.md"), "x");
}
execFileSync("git", ["init", "-q", root]);
execFileSync("git", ["-C", root, "remote", "add", "origin", "https://u:TOKEN@example.com/r.git"]);

async function time(label: string, runs: number, once: () => Promise<unknown>): Promise<void> {
  const samples: number[] = [];
  for (let i = 0; i < runs; i++) {
    const start = performance.now();
    await once();
    samples.push(performance.now() - start);
  }
  const sorted = [...samples].sort((a, b) => a - b);
  console.log(`${label.padEnd(46)} median ${fmt(median(sorted))} ms   p95 ${fmt(percentile(sorted, 95))} ms`);
}

try {
  // Listings are cached only for directories unchanged for two seconds.
  await sleep(2500);
  const warm = new HiddenPathScanner(root, DEFAULT_CREDENTIAL_LISTS);
  const found = await warm.scan();
  console.log(
    `${packages} packages, covered: ${found.files.length} files, ${found.replaced?.length} git configs`,
  );
  await time("cold scan (a new scanner each time)", 5, () =>
    new HiddenPathScanner(root, DEFAULT_CREDENTIAL_LISTS).scan(),
  );
  await time("warm scan (cached listings)", 30, () => warm.scan());
  const runner = new BubblewrapRunner(root, { maxProcesses: null });
  const signal = new AbortController().signal;
  const command = async () => {
    for await (const _ of runner.run({
      command: "true",
      cwd: root,
      timeoutMs: 10_000,
      maxOutputChars: 1000,
      signal,
    })) {
    }
  };
  await command();
  await time("BubblewrapRunner reused, `true` (maxProcesses: null)", 30, command);
} finally {
  rmSync(root, { recursive: true, force: true });
}
