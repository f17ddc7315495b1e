/** Where `npm run build` (src/build-agentscope.mjs) put the transpiled library, and typed imports of it. */
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

export const distDir = join(
  fileURLToPath(new URL("../..", import.meta.url)),
  "node_modules",
  ".cache",
  "agentscope-bench",
  "dist",
);

export const distUrl = (entry: string, dir = distDir) => pathToFileURL(join(dir, entry)).href;

type Agentscope = typeof import("../../src/index.js") &
  typeof import("../../src/agent/index.js") &
  typeof import("../../src/model/openai/index.js");

/** The core entry, the agent entry and the OpenAI models, from the build (never from ../src through tsx). */
export async function importAgentscope(dir = distDir): Promise<Agentscope> {
  const [core, agent, openai] = await Promise.all([
    import(distUrl("index.js", dir)),
    import(distUrl("agent/index.js", dir)),
    import(distUrl("model/openai/index.js", dir)),
  ]);
  return { ...core, ...agent, ...openai } as Agentscope;
}

/** zod as the library resolves it (the library's own copy, not the bench's). */
export async function importLibraryZod(dir = distDir): Promise<typeof import("zod")> {
  const { createRequire } = await import("node:module");
  const path = createRequire(join(dir, "index.js")).resolve("zod");
  return import(pathToFileURL(path).href);
}
