import { extname } from "node:path";
import { z } from "zod";
import { newId } from "../../message/index.js";
import { functionTool } from "../function-tool.js";
import type { Tool } from "../types.js";
import { type FileViewSource, fileViewOf } from "./file-view.js";
import { recordRead } from "./read-cache.js";
import { pathToolPermission, stringField, viewPath } from "./tool-paths.js";

export interface ReadToolOptions {
  /** Lines returned when the model gives no limit (default 2000). */
  defaultLimit?: number;
  /** Longer lines are cut (default 2000 characters). */
  maxLineChars?: number;
  /** Where files are read (default the host; a workspace passes its confined view). */
  files?: FileViewSource;
}

const IMAGE_TYPES: Record<string, string> = {
  ".png": "image/png",
  ".jpg": "image/jpeg",
  ".jpeg": "image/jpeg",
  ".gif": "image/gif",
  ".webp": "image/webp",
};

const input = z.object({
  path: z.string().min(1).describe("The file to read (absolute, or relative to the working directory)"),
  offset: z.number().int().min(1).optional().describe("The first line to read, counting from 1"),
  limit: z.number().int().min(1).optional().describe("How many lines to read"),
});

/**
 * Reads a text file as numbered lines (`offset`/`limit` pick a range), or an image as a data block.
 * Remembers what it read in the session's tool state so Edit can refuse a file changed since.
 */
export function readTool(options: ReadToolOptions = {}): Tool<z.infer<typeof input>> {
  const defaultLimit = options.defaultLimit ?? 2000;
  const maxLineChars = options.maxLineChars ?? 2000;
  return functionTool({
    name: "Read",
    description:
      "Reads a file. Text comes back as numbered lines (`offset` and `limit` pick a range); images come back as images.",
    input,
    readOnly: true,
    concurrencySafe: true,
    ...pathToolPermission("Read", (value) => stringField(value, "path")),
    async execute(args, ctx) {
      const view = fileViewOf(options.files, ctx);
      const path = await viewPath(view, args.path, ctx);
      const { data: bytes, mtimeMs } = await view.read(path).catch((error: NodeJS.ErrnoException) => {
        throw new Error(describeReadError(args.path, error));
      });
      recordRead(ctx, path, bytes, mtimeMs);
      const mediaType = IMAGE_TYPES[extname(path).toLowerCase()];
      if (mediaType) {
        return [
          {
            type: "data",
            id: newId(),
            source: { type: "base64", mediaType, data: bytes.toString("base64") },
            name: args.path,
          },
        ];
      }
      if (bytes.includes(0))
        throw new Error(`${args.path} is a binary file; only text and images can be read`);
      const text = bytes.toString("utf8");
      if (text === "") return `${args.path} is empty`;
      const lines = text.replace(/\r\n/g, "\n").split("\n");
      if (lines.at(-1) === "") lines.pop();
      const first = args.offset ?? 1;
      if (first > lines.length) {
        throw new Error(`${args.path} has ${lines.length} lines; offset ${first} is past the end`);
      }
      const slice = lines.slice(first - 1, first - 1 + (args.limit ?? defaultLimit));
      const numbered = slice.map((line, index) => {
        const shown = line.length > maxLineChars ? `${line.slice(0, maxLineChars)}… [line cut]` : line;
        return `${String(first + index).padStart(6)}\t${shown}`;
      });
      const last = first + slice.length - 1;
      const more =
        last < lines.length ? `\n[lines ${first}-${last} of ${lines.length}; use offset to read on]` : "";
      return numbered.join("\n") + more;
    },
  });
}

export function describeReadError(path: string, error: NodeJS.ErrnoException): string {
  if (error.code === "ENOENT") return `${path} does not exist`;
  if (error.code === "EISDIR") return `${path} is a directory; use Glob or Bash ls to list it`;
  if (error.code === "EACCES") return `${path} cannot be read: permission denied`;
  if (error.code === "ELOOP") return `${path} cannot be read: it is a symlink the file tools do not follow`;
  return `${path} cannot be read: ${error.message}`;
}
