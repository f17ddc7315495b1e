import { globSync } from "tinyglobby";
import {
  absolutePath,
  type PermissionContext,
  type PermissionSubject,
  pathPermission,
  type ToolPermissionResult,
} from "../../../permission/index.js";
import { analyzeBash, type BashAnalysis } from "../bash-analysis.js";
import { stringField } from "../tool-paths.js";
import { matchCommandRule, suggestCommandRules } from "./command-rule.js";

const MAX_GLOB_MATCHES = 200;

/**
 * The permission members of the Bash tool: read-only commands (allow-listed programs and options)
 * pass the fast path; control flow, hidden commands and dangerous patterns are safety asks; every
 * path the command names, globs expanded against the working directory, is checked by the engine.
 */
export function bashPermission(): Pick<
  PermissionSubject,
  "isReadOnly" | "pathsOf" | "checkPermissions" | "matchRule" | "suggestRules"
> {
  return {
    isReadOnly: (value) => analysisOf(value)?.readOnly ?? false,
    pathsOf: (value, context) => {
      const analysis = analysisOf(value);
      if (!analysis) return [];
      return context ? [...analysis.paths, ...expandGlobs(analysis.globs, context)] : analysis.paths;
    },
    checkPermissions: (value, context): ToolPermissionResult => {
      const analysis = analysisOf(value);
      if (!analysis) return { behavior: "passthrough" };
      if (analysis.safety.length > 0) {
        return {
          behavior: "ask",
          safety: true,
          reason: `a person must confirm: ${analysis.safety.join("; ")}`,
        };
      }
      if (context.mode === "accept_edits" && analysis.fileEditsOnly) {
        return pathPermission([...analysis.paths, ...expandGlobs(analysis.globs, context)], context, {
          editsFiles: true,
        });
      }
      return { behavior: "passthrough" };
    },
    matchRule: (content, value, match) => {
      const analysis = analysisOf(value);
      return analysis ? matchCommandRule(content, analysis, match) : false;
    },
    suggestRules: (value) => {
      const analysis = analysisOf(value);
      return analysis ? suggestCommandRules(analysis) : [];
    },
  };
}

function analysisOf(value: unknown): BashAnalysis | undefined {
  const command = stringField(value, "command");
  return command === undefined ? undefined : analyzeBash(command);
}

/**
 * The files the shell's globs match now (as bash does: `*` skips dot files, no `**` recursion), so a
 * symlink or an unexpected name is checked like a path written out.
 */
function expandGlobs(globs: readonly string[], context: PermissionContext): string[] {
  const out: string[] = [];
  for (const glob of globs) {
    const absolute = absolutePath(glob, context);
    const pattern = absolute.replace(/\*\*+/g, "*");
    try {
      out.push(
        ...globSync(pattern, {
          absolute: true,
          dot: false,
          onlyFiles: false,
          expandDirectories: false,
        }).slice(0, MAX_GLOB_MATCHES),
      );
    } catch {
      out.push(absolute);
    }
  }
  return out;
}
