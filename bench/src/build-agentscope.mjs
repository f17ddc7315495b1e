// Builds agentscope for the bench the way `npm run build` ships it: the public entry points bundled
// by ../../scripts/bundle-entries.mjs (shared chunks, zod tree-shaken in), written into the root's
// node_modules/.cache so the external dependencies resolve from the library's own node_modules,
// never from the bench's. `--per-file` transpiles ../src file by file instead (the unbundled module
// graph, for before/after comparisons of the import cost).
import { readdirSync, rmSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";
import { bundleEntries } from "../../scripts/bundle-entries.mjs";

const root = join(dirname(fileURLToPath(import.meta.url)), "..", "..");
export const distDir = join(root, "node_modules", ".cache", "agentscope-bench", "dist");
export const perFileDir = join(root, "node_modules", ".cache", "agentscope-bench", "per-file");

function sources(dir) {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sources(path);
    return entry.name.endsWith(".ts") && !entry.name.endsWith(".d.ts") ? [path] : [];
  });
}

async function transpilePerFile(outdir) {
  rmSync(outdir, { recursive: true, force: true });
  const entryPoints = sources(join(root, "src"));
  await build({
    entryPoints,
    outdir,
    outbase: join(root, "src"),
    format: "esm",
    platform: "node",
    target: "es2022",
    bundle: false,
    logLevel: "warning",
    tsconfig: join(root, "tsconfig.json"),
  });
  return entryPoints.length;
}

const started = performance.now();
if (process.argv.includes("--per-file")) {
  const count = await transpilePerFile(perFileDir);
  console.log(`transpiled ${count} files of agentscope into ${relative(process.cwd(), perFileDir)}`);
} else {
  rmSync(distDir, { recursive: true, force: true });
  const outputs = await bundleEntries(distDir);
  console.log(
    `bundled agentscope (${outputs.length} files) into ${relative(process.cwd(), distDir)} in ${Math.round(performance.now() - started)} ms`,
  );
}
