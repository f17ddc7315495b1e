import { z } from "zod";
import { functionTool } from "../function-tool.js";
import type { Tool } from "../types.js";
import { type FileViewSource, fileViewOf } from "./file-view.js";
import { recordRead } from "./read-cache.js";
import { pathToolPermission, stringField, viewPath } from "./tool-paths.js";

const input = z.object({
  path: z.string().min(1).describe("The file to write (absolute, or relative to the working directory)"),
  content: z.string().describe("The whole new content of the file"),
});

export interface WriteToolOptions {
  /** Where files are written (default the host; a workspace passes its confined view). */
  files?: FileViewSource;
}

/** Writes a whole file, creating missing directories. Edits files: accept_edits allows it inside the working directories. */
export function writeTool(options: WriteToolOptions = {}): Tool<z.infer<typeof input>> {
  return functionTool({
    name: "Write",
    description:
      "Writes a file with the given content, replacing it if it exists and creating missing directories.",
    input,
    readOnly: false,
    concurrencySafe: false,
    editsFiles: true,
    ...pathToolPermission("Write", (value) => stringField(value, "path")),
    async execute(args, ctx) {
      const view = fileViewOf(options.files, ctx);
      const path = await viewPath(view, args.path, ctx);
      const { mtimeMs } = await view.write(path, args.content).catch((error: NodeJS.ErrnoException) => {
        throw new Error(describeWriteError(args.path, error));
      });
      recordRead(ctx, path, args.content, mtimeMs);
      return `wrote ${args.path} (${args.content.length} characters)`;
    },
  });
}

export function describeWriteError(path: string, error: NodeJS.ErrnoException): string {
  if (error.code === "EISDIR") return `${path} is a directory, not a file`;
  if (error.code === "EACCES") return `${path} cannot be written: permission denied`;
  if (error.code === "ELOOP")
    return `${path} cannot be written: it is a symlink the file tools do not follow`;
  return `${path} cannot be written: ${error.message}`;
}
