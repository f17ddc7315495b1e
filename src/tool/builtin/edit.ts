import { readFile, writeFile } from "node:fs/promises";
import { z } from "zod";
import { functionTool } from "../function-tool.js";
import type { Tool } from "../types.js";
import { describeReadError } from "./read.js";
import { recordRead, staleReason } from "./read-cache.js";
import { pathToolPermission, stringField, toolPath } from "./tool-paths.js";

const input = z.object({
  path: z.string().min(1).describe("The file to edit (absolute, or relative to the working directory)"),
  oldString: z.string().min(1).describe("The exact text to replace"),
  newString: z.string().describe("The text to put in its place"),
  replaceAll: z.boolean().optional().describe("Replace every occurrence (default: the text must occur once)"),
});

/**
 * Replaces an exact string in a file the session has read. Fails when the string is missing, when it
 * occurs more than once (unless replaceAll), and when the file was never read or changed since.
 */
export function editTool(): Tool<z.infer<typeof input>> {
  return functionTool({
    name: "Edit",
    description:
      "Replaces exact text in a file. Read the file first. `oldString` must occur exactly once unless `replaceAll` is set.",
    input,
    readOnly: false,
    concurrencySafe: false,
    editsFiles: true,
    ...pathToolPermission("Edit", (value) => stringField(value, "path")),
    async execute(args, ctx) {
      const path = toolPath(args.path, ctx);
      const content = await readFile(path, "utf8").catch((error: NodeJS.ErrnoException) => {
        throw new Error(describeReadError(args.path, error));
      });
      const stale = staleReason(ctx, path, content);
      if (stale) throw new Error(stale);
      if (args.oldString === args.newString)
        throw new Error("oldString and newString are the same; nothing to change");
      const count = content.split(args.oldString).length - 1;
      if (count === 0) {
        throw new Error(
          `the text to replace was not found in ${args.path}; read the file and copy it exactly`,
        );
      }
      if (count > 1 && !args.replaceAll) {
        throw new Error(
          `the text to replace occurs ${count} times in ${args.path}; add surrounding lines to make it unique, or set replaceAll`,
        );
      }
      const updated = args.replaceAll
        ? content.split(args.oldString).join(args.newString)
        : content.replace(args.oldString, () => args.newString);
      await writeFile(path, updated, "utf8");
      await recordRead(ctx, path, updated);
      return `replaced ${count === 1 ? "1 occurrence" : `${count} occurrences`} in ${args.path}`;
    },
  });
}
