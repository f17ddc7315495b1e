import { z } from "zod";
import { dangerousGlobReason, type ToolPermissionResult } from "../../permission/index.js";
import { functionTool } from "../function-tool.js";
import type { Tool } from "../types.js";
import { type FileViewSource, fileViewOf } from "./file-view.js";
import { findRipgrep, type GrepQuery, searchWithJs, searchWithRipgrep } from "./grep-search.js";
import { globRoot, pathToolPermission, stringField, viewPath, withoutOtherLinks } from "./tool-paths.js";

export interface GrepToolOptions {
  /** Use ripgrep when it is on PATH (default true); otherwise a JavaScript search. */
  useRipgrep?: boolean;
  /** Most lines returned (default 500). */
  maxResults?: number;
  /** Where files are searched (default the host; a workspace passes its confined view). */
  files?: FileViewSource;
}

const input = z.object({
  pattern: z.string().min(1).describe("A regular expression to search file contents for"),
  path: z.string().optional().describe("The file or directory to search (default: the working directory)"),
  glob: z.string().optional().describe('Only search files matching this glob, e.g. "*.ts"'),
  ignoreCase: z.boolean().optional(),
  outputMode: z
    .enum(["content", "files", "count"])
    .optional()
    .describe("content: matching lines; files: names of matching files (default); count: matches per file"),
});

/** Why the input's `glob` could select a dangerous file (`.env`, `.git/config`, ...), if it could. */
function sensitiveGlob(value: unknown): string | undefined {
  const glob = stringField(value, "glob");
  return glob === undefined ? undefined : dangerousGlobReason(glob);
}

/**
 * Searches file contents by regular expression, with ripgrep when present, else in JavaScript. A
 * directory search never reads dangerous files (`.env`, `.git/`, `.ssh/`, ...) or follows a symlink,
 * whatever the glob; a glob that could select one asks first, and the glob's root is checked like the
 * path. In a workspace, the view's hidden paths are skipped too.
 */
export function grepTool(options: GrepToolOptions = {}): Tool<z.infer<typeof input>> {
  const maxResults = options.maxResults ?? 500;
  return functionTool({
    name: "Grep",
    description: "Searches file contents with a regular expression; lists matching files, lines or counts.",
    input,
    readOnly: true,
    concurrencySafe: true,
    ...pathToolPermission("Grep", (value) => stringField(value, "path"), { directory: true }),
    pathsOf: (value, context) => {
      const path = stringField(value, "path") ?? ".";
      const glob = stringField(value, "glob");
      return withoutOtherLinks(glob === undefined ? [path] : [path, globRoot(glob, path)], context);
    },
    isReadOnly: (value) => sensitiveGlob(value) === undefined,
    checkPermissions: (value): ToolPermissionResult => {
      const danger = sensitiveGlob(value);
      if (danger === undefined) return { behavior: "passthrough" };
      return {
        behavior: "ask",
        safety: true,
        reason: `the glob can reach a sensitive file (${danger}); a person must confirm`,
      };
    },
    async execute(args, ctx) {
      const view = fileViewOf(options.files, ctx);
      const query: GrepQuery = {
        view,
        pattern: args.pattern,
        target: await viewPath(view, args.path ?? ".", ctx),
        glob: args.glob,
        ignoreCase: args.ignoreCase ?? false,
        mode: args.outputMode ?? "files",
        signal: ctx.signal,
      };
      const rg = options.useRipgrep === false ? null : findRipgrep();
      const lines = rg ? await searchWithRipgrep(rg, query) : await searchWithJs(query);
      if (lines.length === 0) return `no matches for ${args.pattern}`;
      const shown = lines.slice(0, maxResults).join("\n");
      return lines.length > maxResults ? `${shown}\n[${lines.length - maxResults} more not shown]` : shown;
    },
  });
}
