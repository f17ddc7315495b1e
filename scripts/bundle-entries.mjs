// Bundles every public entry point of package.json (`exports` and `bin`) with esbuild into one
// module graph with shared chunks, so `import "agentscope"` loads a handful of files instead of ~180
// (Node 20 pays per ESM module; see docs/decisions.md, "Bundled entry points").
//
// - All entries are bundled in ONE esbuild call with code splitting: every entry shares the same
//   chunks, so a class (Msg, Agent, ...) exists once whichever entries a program imports.
// - zod and eventsource-parser are bundled in (tree-shaken: zod's 64 locale files are not loaded).
//   zod 4 keeps its registry and config on globalThis and checks `instanceof` by traits, so schemas
//   from the user's own zod work with the bundled copy. Every other dependency stays external.
// - A dependency that is imported but not declared in package.json would be bundled silently: the
//   build fails instead.
//
// Usage: node scripts/bundle-entries.mjs [outdir]   (default dist; the bench bundles into its cache)
import { execFileSync } from "node:child_process";
import { readFileSync, rmSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { builtinModules } from "node:module";
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { build } from "esbuild";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");

/** Dependencies compiled into the bundle rather than loaded from node_modules at run time. */
export const BUNDLED_DEPENDENCIES = ["zod", "eventsource-parser"];

/** `./dist/agent/index.js` -> `agent/index` (the output name) and `src/agent/index.ts` (the source). */
function entryFromDistPath(distPath) {
  const name = distPath.replace(/^\.\/dist\//, "").replace(/\.js$/, "");
  return [name, join(root, "src", `${name}.ts`)];
}

/** The public entry points: every `exports` condition `import` and every `bin`. */
export function entryPoints(pkg) {
  const paths = [
    ...Object.values(pkg.exports).map((target) => target.import),
    ...Object.values(pkg.bin ?? {}),
  ];
  return Object.fromEntries(paths.map(entryFromDistPath));
}

function externals(pkg) {
  const names = Object.keys({
    ...pkg.dependencies,
    ...pkg.devDependencies,
    ...pkg.peerDependencies,
    ...pkg.optionalDependencies,
  }).filter((name) => !BUNDLED_DEPENDENCIES.includes(name));
  return names.flatMap((name) => [name, `${name}/*`]);
}

/**
 * `import { z } from "zod"` reaches zod's namespace through a re-export, which esbuild keeps whole
 * (all 64 locales, ~750 KB); `import * as z from "zod"` is the same object and tree-shakes to what is
 * used (~180 KB). The sources keep the idiomatic form; the bundle reads them with the namespace form.
 */
const zodNamespaceImports = {
  name: "zod-namespace-imports",
  setup(build) {
    build.onLoad({ filter: /[\\/]src[\\/].*\.ts$/ }, async (args) => {
      const source = await readFile(args.path, "utf8");
      if (!source.includes('import { z } from "zod";')) return undefined;
      return {
        contents: source.replaceAll('import { z } from "zod";', 'import * as z from "zod";'),
        loader: "ts",
      };
    });
  },
};

/** zod's locale files in a bundle: 1 (en, the default) when zod was tree-shaken. */
function zodLocales(metafile) {
  const emitted = new Set();
  for (const output of Object.values(metafile.outputs))
    for (const [input, { bytesInOutput }] of Object.entries(output.inputs))
      if (bytesInOutput > 0) emitted.add(input);
  return [...emitted].filter((input) => /zod\/v4\/locales\/[^/]+\.js$/.test(input)).length;
}

/** The packages a bundle compiled in, from its metafile inputs. */
function bundledPackages(metafile) {
  const packages = new Set();
  for (const input of Object.keys(metafile.inputs)) {
    const match = /node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(input);
    if (match) packages.add(match[1]);
  }
  return [...packages];
}

/**
 * The output folders whose code looks the prebuilt console up next to itself
 * (`new URL("./bundle/", import.meta.url)` in src/app/console/index.ts): the console bundle goes there.
 */
export function consoleBundleDirs(outputs) {
  const dirs = new Set();
  for (const file of outputs.filter((f) => f.endsWith(".js")))
    if (readFileSync(join(root, file), "utf8").includes('new URL("./bundle/", import.meta.url)'))
      dirs.add(dirname(join(root, file)));
  return [...dirs];
}

export async function bundleEntries(outdir = join(root, "dist"), { sourcemap = false } = {}) {
  const pkg = JSON.parse(readFileSync(join(root, "package.json"), "utf8"));
  rmSync(join(outdir, "chunks"), { recursive: true, force: true });
  const result = await build({
    entryPoints: entryPoints(pkg),
    outdir,
    bundle: true,
    splitting: true,
    format: "esm",
    platform: "node",
    target: "node20",
    chunkNames: "chunks/[name]-[hash]",
    external: [...externals(pkg), ...builtinModules.map((name) => `node:${name}`)],
    metafile: true,
    sourcemap,
    logLevel: "warning",
    tsconfig: join(root, "tsconfig.json"),
    plugins: [zodNamespaceImports],
  });
  const unexpected = bundledPackages(result.metafile).filter((name) => !BUNDLED_DEPENDENCIES.includes(name));
  if (unexpected.length > 0)
    throw new Error(
      `bundle-entries: ${unexpected.join(", ")} would be compiled into the bundle: declare it in package.json (dependencies, or peer/dev for optional ones) or add it to BUNDLED_DEPENDENCIES`,
    );
  if (zodLocales(result.metafile) > 1)
    throw new Error(
      'bundle-entries: zod was not tree-shaken (its locales are in the bundle): a source imports zod in a form other than `import { z } from "zod"` or `import type`',
    );
  return Object.keys(result.metafile.outputs).map((file) => relative(root, file));
}

/** The package build: bundles into dist (with source maps) and writes the web console beside its code. */
if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  const outdir = resolve(process.argv[2] ?? join(root, "dist"));
  const started = performance.now();
  const outputs = await bundleEntries(outdir, { sourcemap: true });
  console.log(
    `bundled ${outputs.filter((f) => f.endsWith(".js")).length} files into ${relative(process.cwd(), outdir)} in ${Math.round(performance.now() - started)} ms`,
  );
  const dirs = consoleBundleDirs(outputs);
  if (dirs.length === 0) throw new Error("bundle-entries: no output serves the web console");
  for (const dir of dirs)
    execFileSync(
      process.execPath,
      ["--import", "tsx", join(root, "src/app/console/write-bundle.ts"), join(dir, "bundle")],
      { stdio: "inherit" },
    );
}
