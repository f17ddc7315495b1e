/**
 * Cold import time: a fresh `node` process per sample (no tsx, no loader hooks) times
 * `await import(...)` of each target with performance.now(); the process start-up is not counted.
 * Targets are sampled interleaved; the median of `samples` is reported.
 */
import { execFileSync } from "node:child_process";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { distUrl, perFileDir } from "./agentscope-dist.js";
import { type Summary, summarize } from "./stats.js";

export interface ImportTarget {
  name: string;
  /** Module specifiers imported together (bare names resolve from bench/). */
  specifiers: string[];
}

const CORE_AGENT_MODELS = ["index.js", "agent/index.js", "model/index.js"];

/** The unbundled module graph (one file per source), when `--per-file` was built: the "before". */
const PER_FILE_TARGETS: ImportTarget[] = existsSync(join(perFileDir, "index.js"))
  ? [
      { name: "agentscope per-file (core entry)", specifiers: [distUrl("index.js", perFileDir)] },
      {
        name: "agentscope per-file (core + agent + models)",
        specifiers: CORE_AGENT_MODELS.map((entry) => distUrl(entry, perFileDir)),
      },
    ]
  : [];

export const IMPORT_TARGETS: ImportTarget[] = [
  { name: "agentscope (core entry)", specifiers: [distUrl("index.js")] },
  {
    name: "agentscope (core + agent + models)",
    specifiers: CORE_AGENT_MODELS.map((entry) => distUrl(entry)),
  },
  ...PER_FILE_TARGETS,
  { name: "zod (alone, for reference)", specifiers: ["zod"] },
  { name: "openai", specifiers: ["openai"] },
  { name: "ai + @ai-sdk/openai-compatible", specifiers: ["ai", "@ai-sdk/openai-compatible"] },
  { name: "@openai/agents", specifiers: ["@openai/agents"] },
];

const benchDir = fileURLToPath(new URL("..", import.meta.url));

/** One fresh process: wall ms and CPU ms (user + system, this process) of the imports. */
function sample(target: ImportTarget): { wall: number; cpu: number } {
  const imports = target.specifiers.map((s) => `import(${JSON.stringify(s)})`).join(", ");
  const code = `const c = process.cpuUsage(); const t = performance.now(); await Promise.all([${imports}]); const wall = performance.now() - t; const cpu = process.cpuUsage(c); process.stdout.write(JSON.stringify({ wall, cpu: (cpu.user + cpu.system) / 1000 }));`;
  const out = execFileSync(process.execPath, ["--input-type=module", "-e", code], {
    cwd: benchDir,
    encoding: "utf8",
  });
  return JSON.parse(out) as { wall: number; cpu: number };
}

/** CPU time is the steadier figure on a loaded machine: other processes inflate wall time far more. */
export function runColdImports(samples = 9): Array<{ name: string; ms: Summary; cpuMs: Summary }> {
  const times = IMPORT_TARGETS.map(() => ({ wall: [] as number[], cpu: [] as number[] }));
  for (let i = 0; i < samples; i++) {
    for (const [k, target] of IMPORT_TARGETS.entries()) {
      const { wall, cpu } = sample(target);
      times[k]!.wall.push(wall);
      times[k]!.cpu.push(cpu);
    }
  }
  return IMPORT_TARGETS.map((target, k) => ({
    name: target.name,
    ms: summarize(times[k]!.wall),
    cpuMs: summarize(times[k]!.cpu),
  }));
}
