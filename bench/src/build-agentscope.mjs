// Transpiles ../src file by file (no bundling: the same module graph as `tsc -p tsconfig.build.json`)
// into the root's node_modules/.cache, so the built library resolves zod, eventsource-parser, ... from
// the library's own node_modules, never from the bench's.
import { readdirSync, rmSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";

const root = join(dirname(fileURLToPath(import.meta.url)), "..", "..");
export const distDir = join(root, "node_modules", ".cache", "agentscope-bench", "dist");

function sources(dir) {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sources(path);
    return entry.name.endsWith(".ts") && !entry.name.endsWith(".d.ts") ? [path] : [];
  });
}

const started = performance.now();
rmSync(distDir, { recursive: true, force: true });
const entryPoints = sources(join(root, "src"));
await build({
  entryPoints,
  outdir: distDir,
  outbase: join(root, "src"),
  format: "esm",
  platform: "node",
  target: "es2022",
  bundle: false,
  logLevel: "warning",
  tsconfig: join(root, "tsconfig.json"),
});
console.log(
  `built ${entryPoints.length} files of agentscope into ${relative(process.cwd(), distDir)} in ${Math.round(performance.now() - started)} ms`,
);
