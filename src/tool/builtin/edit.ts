import { z } from "zod";
import { functionTool } from "../function-tool.js";
import type { Tool } from "../types.js";
import { type FileViewSource, fileViewOf } from "./file-view.js";
import { describeReadError } from "./read.js";
import { recordRead, staleReason } from "./read-cache.js";
import { pathToolPermission, stringField, viewPath } from "./tool-paths.js";
import { describeWriteError } from "./write.js";

const input = z.object({
  path: z.string().min(1).describe("The file to edit (absolute, or relative to the working directory)"),
  oldString: z.string().min(1).describe("The exact text to replace"),
  newString: z.string().describe("The text to put in its place"),
  replaceAll: z.boolean().optional().describe("Replace every occurrence (default: the text must occur once)"),
});

export interface EditToolOptions {
  /** Where files are read and written (default the host; a workspace passes its confined view). */
  files?: FileViewSource;
}

/**
 * Replaces an exact string in a file the session has read. Fails when the string is missing, when it
 * occurs more than once (unless replaceAll), and when the file was never read or changed since.
 */
export function editTool(options: EditToolOptions = {}): Tool<z.infer<typeof input>> {
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
      const view = fileViewOf(options.files, ctx);
      const path = await viewPath(view, args.path, ctx);
      const read = await view.read(path).catch((error: NodeJS.ErrnoException) => {
        throw new Error(describeReadError(args.path, error));
      });
      const content = read.data.toString("utf8");
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
      const { mtimeMs } = await view.write(path, updated).catch((error: NodeJS.ErrnoException) => {
        throw new Error(describeWriteError(args.path, error));
      });
      recordRead(ctx, path, updated, mtimeMs);
      return `replaced ${count === 1 ? "1 occurrence" : `${count} occurrences`} in ${args.path}`;
    },
  });
}
