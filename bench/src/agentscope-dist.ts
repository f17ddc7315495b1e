/**
 * Where `npm run build` (src/build-agentscope.mjs) put the library, bundled as it ships (the public
 * entry points only), and typed imports of it. `perFileDir` holds the unbundled transpile
 * (`node src/build-agentscope.mjs --per-file`), for before/after import costs.
 */
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

/** AGENTSCOPE_BENCH_DIST points the clients at another build (an A/B of first replies, say). */
export const distDir =
  process.env.AGENTSCOPE_BENCH_DIST ??
  join(
    fileURLToPath(new URL("../..", import.meta.url)),
    "node_modules",
    ".cache",
    "agentscope-bench",
    "dist",
  );
export const perFileDir = join(
  fileURLToPath(new URL("../..", import.meta.url)),
  "node_modules",
  ".cache",
  "agentscope-bench",
  "per-file",
);

export const distUrl = (entry: string, dir = distDir) => pathToFileURL(join(dir, entry)).href;

type Agentscope = typeof import("../../src/index.js") &
  typeof import("../../src/agent/index.js") &
  typeof import("../../src/model/index.js");

/** The core entry, the agent entry and the models entry, from the build (never from ../src through tsx). */
export async function importAgentscope(dir = distDir): Promise<Agentscope> {
  const [core, agent, openai] = await Promise.all([
    import(distUrl("index.js", dir)),
    import(distUrl("agent/index.js", dir)),
    import(distUrl("model/index.js", dir)),
  ]);
  return { ...core, ...agent, ...openai } as Agentscope;
}

/** zod as the library resolves it (the library's own copy, not the bench's). */
export async function importLibraryZod(dir = distDir): Promise<typeof import("zod")> {
  const { createRequire } = await import("node:module");
  const path = createRequire(join(dir, "index.js")).resolve("zod");
  return import(pathToFileURL(path).href);
}
