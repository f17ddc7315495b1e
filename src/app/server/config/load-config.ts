import { readFile } from "node:fs/promises";
import { extname, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { ConfigError, parseServiceConfig, type ServiceConfig } from "./service-config.js";

/**
 * Reads a service config: `.json` as JSON; `.ts`, `.mts`, `.js`, `.mjs` by import (its default export,
 * or a function returning it). TypeScript files need a loader such as tsx (`npm run agentscope`).
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
      const hint = ext.endsWith("ts")
        ? " (TypeScript configs need tsx: npm run agentscope -- serve ...)"
        : "";
      throw new ConfigError(`cannot load the config file ${path}: ${(error as Error).message}${hint}`);
    }
    value = typeof module.default === "function" ? await module.default() : module.default;
  } else {
    throw new ConfigError(`config file ${path}: use .json, .ts or .js`);
  }
  return parseServiceConfig(value, path);
}
