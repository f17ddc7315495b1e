import { readFile } from "node:fs/promises";
import { extname, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { ConfigError, parseServiceConfig, type ServiceConfig } from "./service-config.js";

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null;

/**
 * Reads a service config: `.json` as JSON; `.ts`, `.mts`, `.js`, `.mjs` by import (its default export,
 * or a function returning it), with or without `"type": "module"` in the user's package.json.
 * TypeScript files need a loader: the CLI registers tsx or uses Node's type stripping (cli/typescript-loader.ts).
 */
export async function loadServiceConfig(file: string): Promise<ServiceConfig> {
  const path = resolve(file);
  const ext = extname(path);
  let value: unknown;
  if (ext === ".json") {
    let text: string;
    try {
      text = await readFile(path, "utf8");
    } catch (error) {
      throw new ConfigError(`cannot read the config file ${path}: ${(error as Error).message}`);
    }
    try {
      value = JSON.parse(text);
    } catch (error) {
      throw new ConfigError(`${path} is not JSON: ${(error as Error).message}`);
    }
  } else if ([".ts", ".mts", ".js", ".mjs"].includes(ext)) {
    let module: { default?: unknown };
    try {
      module = await import(pathToFileURL(path).href);
    } catch (error) {
      const message = (error as Error).message;
      const hint = /top-level await|Cannot use import statement|ERR_REQUIRE_ESM/i.test(message)
        ? ` (your package.json has no "type": "module", so ${ext} is loaded as CommonJS: name the file agents.m${ext.slice(-2)} or add "type": "module")`
        : ext.endsWith("ts")
          ? " (TypeScript configs need a loader: npm install --save-dev tsx, which the agentscope CLI uses by itself)"
          : "";
      throw new ConfigError(`cannot load the config file ${path}: ${message}${hint}`);
    }
    value = typeof module.default === "function" ? await module.default() : module.default;
    // Loaded as CommonJS (a package.json without "type": "module"), `export default` arrives one level down.
    if (isObject(value) && !("agents" in value) && isObject(value.default)) value = value.default;
    if (typeof value === "function") value = await value();
  } else {
    throw new ConfigError(`config file ${path}: use .json, .ts or .js`);
  }
  return parseServiceConfig(value, path);
}
