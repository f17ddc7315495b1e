import { glob } from "tinyglobby";
import { z } from "zod";
import { functionTool } from "../function-tool.js";
import type { Tool } from "../types.js";
import { globRoot, pathToolPermission, stringField, toolPath } from "./tool-paths.js";

export interface GlobToolOptions {
  /** Most paths returned (default 1000). */
  maxResults?: number;
}

/** Folders no search should walk. */
export const IGNORED_DIRECTORIES = ["**/node_modules/**", "**/.git/**"];

const input = z.object({
  pattern: z.string().min(1).describe('A glob pattern, e.g. "src/**/*.ts"'),
  path: z.string().optional().describe("The directory to search in (default: the working directory)"),
});

/**
 * Lists files matching a glob pattern, sorted, relative to the searched directory. The permission
 * check covers the directory the pattern reaches (`/etc/pass*` reaches `/etc`), not only `path`.
 */
export function globTool(options: GlobToolOptions = {}): Tool<z.infer<typeof input>> {
  const maxResults = options.maxResults ?? 1000;
  return functionTool({
    name: "Glob",
    description: 'Finds files by glob pattern (e.g. "**/*.ts"); returns their paths, one per line.',
    input,
    readOnly: true,
    concurrencySafe: true,
    ...pathToolPermission("Glob", (value) => stringField(value, "path"), { directory: true }),
    pathsOf: (value) => {
      const path = stringField(value, "path") ?? ".";
      const pattern = stringField(value, "pattern");
      return pattern === undefined ? [path] : [path, globRoot(pattern, path)];
    },
    async execute(args, ctx) {
      const cwd = toolPath(args.path ?? ".", ctx);
      const files = (await glob(args.pattern, { cwd, ignore: IGNORED_DIRECTORIES, dot: true })).sort();
      if (files.length === 0) return `no files match ${args.pattern}`;
      const shown = files.slice(0, maxResults).join("\n");
      return files.length > maxResults ? `${shown}\n[${files.length - maxResults} more not shown]` : shown;
    },
  });
}
