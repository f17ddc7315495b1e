/**
 * Minified size of the core entry (src/index.ts) bundled by esbuild, with zod and ajv external and
 * included. Code splitting is on, so what the core loads only on demand (`import()`: the MCP SDK,
 * the database drivers' glue) lands in lazy chunks: `bytes` is what `import "agentscope"` loads,
 * `lazyBytes` the rest.
 */

import { fileURLToPath } from "node:url";
import { gzipSync } from "node:zlib";
import { build, type Metafile } from "esbuild";

export interface BundleResult {
  variant: string;
  bytes: number;
  gzipBytes: number;
  lazyBytes: number;
  /** The largest inputs (npm package or src folder) and their bytes in the output. */
  largest: Array<{ input: string; bytes: number }>;
}

const root = fileURLToPath(new URL("../..", import.meta.url));
/** Drivers the state stores load lazily, only when such a store is created: never part of the core. */
const DRIVERS = ["pg", "mysql2", "ioredis", "better-sqlite3"];

async function bundle(variant: string, external: string[]): Promise<BundleResult> {
  const result = await build({
    entryPoints: [`${root}src/index.ts`],
    bundle: true,
    minify: true,
    format: "esm",
    platform: "node",
    target: "node20",
    write: false,
    metafile: true,
    splitting: true,
    outdir: "/virtual-out",
    external: [...DRIVERS, ...external],
    logLevel: "silent",
  });
  const eager = eagerOutputs(result.metafile);
  const files = result.outputFiles.map((file) => ({
    key: file.path.slice(file.path.indexOf("virtual-out")),
    file,
  }));
  const loaded = files.filter(({ key }) => eager.has(key)).map(({ file }) => file.contents);
  const bytes = loaded.reduce((sum, contents) => sum + contents.length, 0);
  const total = files.reduce((sum, { file }) => sum + file.contents.length, 0);
  return {
    variant,
    bytes,
    gzipBytes: loaded.reduce((sum, contents) => sum + gzipSync(contents).length, 0),
    lazyBytes: total - bytes,
    largest: largest(result.metafile, eager),
  };
}

/** The entry chunk and every chunk it imports statically (what `import "agentscope"` loads). */
function eagerOutputs(metafile: Metafile): Set<string> {
  const key = (path: string) => path.slice(path.indexOf("virtual-out"));
  const byKey = new Map(Object.entries(metafile.outputs).map(([path, output]) => [key(path), output]));
  const entry = [...byKey].find(([, output]) => output.entryPoint !== undefined)![0];
  const eager = new Set<string>();
  const visit = (k: string) => {
    if (eager.has(k)) return;
    eager.add(k);
    for (const dep of byKey.get(k)?.imports ?? []) {
      if (dep.kind === "import-statement" && !dep.external) visit(key(dep.path));
    }
  };
  visit(entry);
  return eager;
}

function largest(metafile: Metafile, eager: Set<string>): BundleResult["largest"] {
  const groups = new Map<string, number>();
  for (const [path, output] of Object.entries(metafile.outputs)) {
    if (!eager.has(path.slice(path.indexOf("virtual-out")))) continue;
    for (const [input, { bytesInOutput }] of Object.entries(output.inputs)) {
      const pkg = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(input)?.[1];
      const key = pkg ?? input.replace(/^src\/([^/]+)\/.*$/, "src/$1/");
      groups.set(key, (groups.get(key) ?? 0) + bytesInOutput);
    }
  }
  return [...groups]
    .sort((a, b) => b[1] - a[1])
    .slice(0, 8)
    .map(([input, bytes]) => ({ input, bytes }));
}

export async function runBundleSize(): Promise<BundleResult[]> {
  return [
    await bundle("zod and ajv external (other dependencies bundled)", ["zod", "ajv", "ajv/*", "zod/*"]),
    await bundle("everything bundled (zod and ajv included)", []),
  ];
}
