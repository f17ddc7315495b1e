/**
 * What one permission decision costs: `decidePermission` for typical calls of the built-in tools,
 * in default mode with a few rules, inside a small git repository (git's decision reads its config
 * and index, a recursive grep walks the tree). Each command is decided with the analysis cache
 * cleared (the first sight of a command) and warm (the same string again, as a re-decided approval
 * is). Prints median and p99 in microseconds. DESIGN.md's budget: under 0.2 ms for a typical command.
 *
 *   node --import tsx bench/src/permission-decision.ts [runs=2000]
 */
import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { decidePermission, type PermissionContext, parseRule } from "../../src/permission/index.js";
import { bashTool, globTool, grepTool, readTool } from "../../src/tool/builtin/index.js";
import type { Tool } from "../../src/tool/index.js";
import { fmt, median, percentile } from "./stats.js";

const runs = Number(process.argv[2] ?? 2000);
const root = mkdtempSync(join(tmpdir(), "agentscope-permission-bench-"));
for (let i = 0; i < 20; i++) {
  mkdirSync(join(root, "src", `dir${i}`), { recursive: true });
  writeFileSync(join(root, "src", `dir${i}`, "file.ts"), "export const x = 1;\n");
}
writeFileSync(join(root, "README.md"), "# bench\n");
execFileSync("git", ["init", "-q"], { cwd: root });
execFileSync("git", ["add", "."], { cwd: root });
execFileSync("git", ["-c", "user.email=b@b", "-c", "user.name=b", "commit", "-qm", "init"], { cwd: root });

const context: PermissionContext = {
  mode: "default",
  workingDirectories: [root],
  rules: [
    parseRule("Bash(npm test:*)", "allow", "config"),
    parseRule("Bash(rm:*)", "deny", "config"),
    parseRule("Read(secrets/**)", "deny", "config"),
  ],
};
const bash = bashTool();
const calls: Array<[string, Tool, unknown]> = [
  ["Bash ls -la", bash, { command: "ls -la" }],
  ["Bash cat README.md", bash, { command: "cat README.md" }],
  ["Bash git status", bash, { command: "git status" }],
  ["Bash git log --oneline -5", bash, { command: "git log --oneline -5" }],
  ["Bash git diff", bash, { command: "git diff" }],
  ["Bash git diff -- README.md", bash, { command: "git diff -- README.md" }],
  ["Bash git show HEAD (asks)", bash, { command: "git show HEAD" }],
  ["Bash git log -p -- README.md", bash, { command: "git log -p -- README.md" }],
  ["Bash grep -rn foo src", bash, { command: "grep -rn foo src" }],
  ["Bash sed -n 1,20p README.md | wc -l", bash, { command: "sed -n 1,20p README.md | wc -l" }],
  ["Bash npm test -- --run (allow rule)", bash, { command: "npm test -- --run" }],
  ["Bash touch notes.txt (asks)", bash, { command: "touch notes.txt" }],
  ["Read README.md", readTool(), { path: join(root, "README.md") }],
  ["Glob src/**/*.ts", globTool(), { pattern: "src/**/*.ts" }],
  ["Grep export", grepTool(), { pattern: "export", path: "src" }],
];

async function time(label: string, once: () => Promise<unknown>): Promise<void> {
  for (let i = 0; i < 50; i++) await once(); // warm-up
  const samples: number[] = [];
  for (let i = 0; i < runs; i++) {
    const start = performance.now();
    await once();
    samples.push((performance.now() - start) * 1000);
  }
  const sorted = [...samples].sort((a, b) => a - b);
  console.log(`${label.padEnd(44)} median ${fmt(median(sorted))} us   p99 ${fmt(percentile(sorted, 99))} us`);
}

console.log(`${runs} decisions each, default mode, 3 rules, a git repository of 21 files at ${root}`);
try {
  for (const [label, tool, rawInput] of calls) {
    const input = tool.parse(rawInput);
    await time(label, () => decidePermission(tool, input, context));
  }
  // The analysis caches per command string; a fresh string each time is the cold path.
  let n = 0;
  await time("Bash cat src/dirN/file.ts (uncached)", () =>
    decidePermission(bash, bash.parse({ command: `cat src/dir${n++ % 20}/file.ts # ${n}` }), context),
  );
} finally {
  rmSync(root, { recursive: true, force: true });
}
