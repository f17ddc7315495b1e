import { readFile } from "node:fs/promises";
import { fileURLToPath } from "node:url";

/** One file of the console as the service serves it. */
export interface ConsoleAsset {
  type: string;
  body: string;
}

/** The console's files by URL path: the page, its script and its styles. */
export type ConsoleAssets = Record<string, ConsoleAsset>;

const UI = new URL("./ui/", import.meta.url);

/**
 * Bundles the console from its TypeScript sources (src/app/console/ui) with esbuild: one minified
 * ES module (the client, Markdown and highlighting included) and one stylesheet. esbuild is a
 * build-time dependency: `npm run build` writes the result next to the compiled service (see
 * write-bundle.ts); from sources (tests, `npm run demo:web`) the service bundles on first request.
 */
export async function buildConsoleAssets(): Promise<ConsoleAssets> {
  let esbuild: typeof import("esbuild");
  try {
    esbuild = await import("esbuild");
  } catch (error) {
    throw new Error(
      "the web console is not built and esbuild is not installed to build it: run `npm run build` (or npm install -D esbuild)",
      { cause: error },
    );
  }
  const result = await esbuild.build({
    entryPoints: {
      app: fileURLToPath(new URL("main.ts", UI)),
      // The studio's pages: a bundle of their own, loaded when the studio first opens (studio-loader.ts).
      studio: fileURLToPath(new URL("studio/studio.ts", UI)),
      // The page of `agentscope replay --open`: the studio's trace view of a trace file.
      trace: fileURLToPath(new URL("studio/trace-file-page.ts", UI)),
      console: fileURLToPath(new URL("console.css", UI)),
    },
    bundle: true,
    write: false,
    format: "esm",
    platform: "browser",
    target: "es2022",
    minify: true,
    legalComments: "none",
    outdir: "out",
    logLevel: "silent",
  });
  const files: ConsoleAssets = {
    "/": { type: "text/html; charset=utf-8", body: await readFile(new URL("index.html", UI), "utf8") },
  };
  for (const file of result.outputFiles) {
    if (file.path.endsWith("app.js"))
      files["/console/app.js"] = { type: "text/javascript; charset=utf-8", body: file.text };
    if (file.path.endsWith("studio.js"))
      files["/console/studio.js"] = { type: "text/javascript; charset=utf-8", body: file.text };
    if (file.path.endsWith("trace.js"))
      files["/console/trace.js"] = { type: "text/javascript; charset=utf-8", body: file.text };
    if (file.path.endsWith("console.css"))
      files["/console/console.css"] = { type: "text/css; charset=utf-8", body: file.text };
  }
  return files;
}
