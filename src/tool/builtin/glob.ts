import { posix } from "node:path";
import { z } from "zod";
import { matchPathRule, type RuleMatchContext } from "../../permission/index.js";
import { functionTool } from "../function-tool.js";
import type { Tool } from "../types.js";
import { type FileViewSource, fileViewOf } from "./file-view.js";
import { globRoot, pathToolPermission, stringField, viewPath } from "./tool-paths.js";

export { IGNORED_DIRECTORIES } from "./file-view.js";

export interface GlobToolOptions {
  /** Most paths returned (default 1000). */
  maxResults?: number;
  /** Where files are listed (default the host; a workspace passes its confined view). */
  files?: FileViewSource;
}

const input = z.object({
  pattern: z.string().min(1).describe('A glob pattern, e.g. "src/**/*.ts"'),
  path: z.string().optional().describe("The directory to search in (default: the working directory)"),
});

/**
 * Whether a `Glob(...)` rule matches a call: an allow rule must cover the directory the pattern
 * reaches (`Glob(src/**)` allows `src/**\/*.ts`, not `**\/*.ts`); a deny or ask rule matches that
 * directory, the searched `path`, or the call's pattern itself (`deny Glob(**\/*.pem)` catches a
 * call for `keys/*.pem`), so a pattern cannot step around it.
 */
export function matchGlobRule(content: string, value: unknown, match?: RuleMatchContext): boolean {
  const path = stringField(value, "path") ?? ".";
  const pattern = stringField(value, "pattern");
  if (pattern === undefined) return matchPathRule(content, path, match);
  const reach = globRoot(pattern, path);
  if (match?.behavior === "allow") return matchPathRule(content, reach, match);
  const written = pattern.startsWith("/") ? pattern : posix.join(path, pattern);
  return [path, reach, written].some((candidate) => matchPathRule(content, candidate, match));
}

/**
 * Lists files matching a glob pattern, sorted, relative to the searched directory. The permission
 * check covers the directory the pattern reaches (`/etc/pass*` reaches `/etc`), not only `path`.
 * Symlinked directories are not walked; a workspace's view lists nothing hidden or outside its root.
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
    matchRule: matchGlobRule,
    pathsOf: (value) => {
      const path = stringField(value, "path") ?? ".";
      const pattern = stringField(value, "pattern");
      return pattern === undefined ? [path] : [path, globRoot(pattern, path)];
    },
    async execute(args, ctx) {
      const view = fileViewOf(options.files, ctx);
      const cwd = await viewPath(view, args.path ?? ".", ctx);
      const files = await view.list(cwd, args.pattern);
      if (files.length === 0) return `no files match ${args.pattern}`;
      const shown = files.slice(0, maxResults).join("\n");
      return files.length > maxResults ? `${shown}\n[${files.length - maxResults} more not shown]` : shown;
    },
  });
}
