import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, extname, join, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { CliError } from "./cli-error.js";

const TYPESCRIPT_EXTENSIONS = new Set([".ts", ".mts", ".cts"]);

/** How this process will load a TypeScript config. */
export type TypeScriptLoader = "running-under-a-loader" | "tsx" | "node-type-stripping";

interface TsxApi {
  register?: () => unknown;
}

/** Node's own type stripping, when this Node has it switched on (22.18+, 23.6+, or the flag on 22.6+). */
function nodeStripsTypes(): boolean {
  return Boolean((process.features as { typescript?: unknown }).typescript);
}

interface ExportTarget {
  import?: string | { default?: string };
}

/**
 * tsx's ESM API (the `import` target of `tsx/esm/api`) as installed in the project that holds the
 * config, if it is. Its CommonJS twin cannot register the ESM hooks, so the path comes from tsx's
 * package.json rather than require.resolve.
 */
function findTsx(configFile: string): string | undefined {
  let manifestPath: string;
  try {
    manifestPath = createRequire(resolve(dirname(configFile), "package.json")).resolve("tsx/package.json");
  } catch {
    return undefined;
  }
  const manifest = JSON.parse(readFileSync(manifestPath, "utf8")) as {
    exports?: Record<string, ExportTarget>;
  };
  const target = manifest.exports?.["./esm/api"]?.import;
  const file = typeof target === "string" ? target : target?.default;
  return file ? join(dirname(manifestPath), file) : undefined;
}

async function chooseLoader(configFile: string): Promise<TypeScriptLoader> {
  if (import.meta.url.endsWith(".ts")) return "running-under-a-loader";
  const tsx = findTsx(configFile);
  if (tsx) {
    const api = (await import(pathToFileURL(tsx).href)) as TsxApi;
    if (api.register) {
      api.register();
      return "tsx";
    }
  }
  if (nodeStripsTypes()) return "node-type-stripping";
  const major = Number(process.versions.node.split(".")[0]);
  const nodeOption =
    major >= 22 ? ", or run it with NODE_OPTIONS=--experimental-strip-types (Node's type stripping)" : "";
  throw new CliError(
    `cannot load the TypeScript config ${configFile}: no TypeScript loader is installed`,
    `npm install --save-dev tsx in the project that holds it (agentscope uses it by itself)${nodeOption}; or write the config as .js or .json`,
  );
}

let chosen: Promise<TypeScriptLoader> | undefined;

/**
 * Makes `import()` of a `.ts`/`.mts` config work in the installed bin: nothing to do when this code
 * itself runs as TypeScript (tsx, as `npm run agentscope` does in this repo); else tsx from the
 * config's project when installed (it also maps `./tool.js` imports to `tool.ts`); else Node's own
 * type stripping where it is on. Otherwise a CliError saying how to get either. Other files: nothing.
 */
export function enableTypeScriptConfig(configFile: string): Promise<TypeScriptLoader | undefined> {
  if (!TYPESCRIPT_EXTENSIONS.has(extname(configFile))) return Promise.resolve(undefined);
  chosen ??= chooseLoader(configFile);
  return chosen;
}
