import { existsSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { Hono } from "hono";
import type { ConsoleAssets } from "./build-bundle.js";
import { BUNDLE_FILES, BUNDLE_TYPES } from "./bundle-files.js";

/**
 * Images only from this server, `data:` and `blob:`: a page showing model output must never fetch a
 * third-party URL by itself (a prompt injection could put a secret in it). Remote images in answers
 * are links the user opens in a new tab (ui/remote-image.ts).
 */
const SECURITY_HEADERS = {
  "content-security-policy":
    "default-src 'self'; img-src 'self' data: blob:; style-src 'self'; script-src 'self'; connect-src 'self'; object-src 'none'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'",
  "x-content-type-options": "nosniff",
  "referrer-policy": "no-referrer",
};

/** Where `npm run build` puts the bundled console, next to this module in dist/. */
const PREBUILT = new URL("./bundle/", import.meta.url);

async function readPrebuilt(): Promise<ConsoleAssets> {
  const assets: ConsoleAssets = {};
  for (const [path, file] of Object.entries(BUNDLE_FILES))
    assets[path] = {
      type: BUNDLE_TYPES[path] as string,
      body: await readFile(new URL(file, PREBUILT), "utf8"),
    };
  return assets;
}

let loading: Promise<ConsoleAssets> | undefined;

/**
 * The console's files: the prebuilt bundle when there is one, else bundled from the TypeScript
 * sources on first use (once per process). A failed build is retried on the next request.
 */
export function consoleAssets(): Promise<ConsoleAssets> {
  loading ??= (
    existsSync(new URL("index.html", PREBUILT))
      ? readPrebuilt()
      : import("./build-bundle.js").then((module) => module.buildConsoleAssets())
  ).catch((error: unknown) => {
    loading = undefined;
    throw error;
  });
  return loading;
}

/**
 * The web console at `/`: a page built from TypeScript sources (src/app/console/ui) on the typed
 * client, talking only to the service's /v1 API.
 */
export function consoleRoutes(): Hono {
  const app = new Hono();
  for (const path of Object.keys(BUNDLE_FILES)) {
    app.get(path, async (c) => {
      const asset = (await consoleAssets())[path];
      if (!asset) return c.text(`the console bundle has no ${path}`, 500);
      return c.body(asset.body, 200, {
        "content-type": asset.type,
        "cache-control": "no-cache",
        ...SECURITY_HEADERS,
      });
    });
  }
  return app;
}
