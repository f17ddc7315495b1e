/** Self time by function (and by file) from a .cpuprofile: `tsx src/profile-summary.ts <file> [top]`. */
import { readFileSync } from "node:fs";

interface Node {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  hitCount?: number;
  children?: number[];
}
const [file, top = "30"] = process.argv.slice(2);
if (!file) throw new Error("usage: profile-summary.ts <file.cpuprofile> [top]");
const profile = JSON.parse(readFileSync(file, "utf8")) as { nodes: Node[]; samples: number[] };
const total = profile.samples.length;
const byFn = new Map<string, number>();
const byFile = new Map<string, number>();
const counts = new Map<number, number>();
for (const id of profile.samples) counts.set(id, (counts.get(id) ?? 0) + 1);
for (const node of profile.nodes) {
  const hits = counts.get(node.id) ?? 0;
  if (!hits) continue;
  const { functionName, url, lineNumber } = node.callFrame;
  const short = url
    .replace(/^.*\/(node_modules\/\.cache\/agentscope-bench\/dist|node_modules)\//, "")
    .replace(/^file:\/\//, "");
  const fn = `${functionName || "(anonymous)"} ${short}:${lineNumber + 1}`;
  byFn.set(fn, (byFn.get(fn) ?? 0) + hits);
  const key = short || functionName;
  byFile.set(key, (byFile.get(key) ?? 0) + hits);
}
const show = (title: string, map: Map<string, number>) => {
  console.log(`\n${title} (${total} samples)`);
  for (const [name, hits] of [...map].sort((a, b) => b[1] - a[1]).slice(0, Number(top))) {
    console.log(`${((100 * hits) / total).toFixed(1).padStart(5)}%  ${name}`);
  }
};
show("self time by function", byFn);
show("self time by file", byFile);
