/**
 * Cold import time: a fresh `node` process per sample (no tsx, no loader hooks) times
 * `await import(...)` of each target with performance.now(); the process start-up is not counted.
 * Targets are sampled interleaved; the median of `samples` is reported.
 */
import { execFileSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { distUrl } from "./agentscope-dist.js";
import { type Summary, summarize } from "./stats.js";

export interface ImportTarget {
  name: string;
  /** Module specifiers imported together (bare names resolve from bench/). */
  specifiers: string[];
}

export const IMPORT_TARGETS: ImportTarget[] = [
  { name: "agentscope (core entry)", specifiers: [distUrl("index.js")] },
  {
    name: "agentscope (core + agent + OpenAI model)",
    specifiers: [distUrl("index.js"), distUrl("agent/index.js"), distUrl("model/openai/index.js")],
  },
  { name: "zod (alone, for reference)", specifiers: ["zod"] },
  { name: "openai", specifiers: ["openai"] },
  { name: "ai + @ai-sdk/openai-compatible", specifiers: ["ai", "@ai-sdk/openai-compatible"] },
  { name: "@openai/agents", specifiers: ["@openai/agents"] },
];

const benchDir = fileURLToPath(new URL("..", import.meta.url));

function sample(target: ImportTarget): number {
  const imports = target.specifiers.map((s) => `import(${JSON.stringify(s)})`).join(", ");
  const code = `const t = performance.now(); await Promise.all([${imports}]); process.stdout.write(String(performance.now() - t));`;
  const out = execFileSync(process.execPath, ["--input-type=module", "-e", code], {
    cwd: benchDir,
    encoding: "utf8",
  });
  return Number(out);
}

export function runColdImports(samples = 9): Array<{ name: string; ms: Summary }> {
  const times = IMPORT_TARGETS.map(() => [] as number[]);
  for (let i = 0; i < samples; i++) {
    for (const [k, target] of IMPORT_TARGETS.entries()) times[k]!.push(sample(target));
  }
  return IMPORT_TARGETS.map((target, k) => ({ name: target.name, ms: summarize(times[k]!) }));
}
