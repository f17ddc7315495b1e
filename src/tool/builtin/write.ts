import { mkdir, writeFile } from "node:fs/promises";
import { dirname } from "node:path";
import { z } from "zod";
import { functionTool } from "../function-tool.js";
import type { Tool } from "../types.js";
import { recordRead } from "./read-cache.js";
import { pathToolPermission, stringField, toolPath } from "./tool-paths.js";

const input = z.object({
  path: z.string().min(1).describe("The file to write (absolute, or relative to the working directory)"),
  content: z.string().describe("The whole new content of the file"),
});

/** Writes a whole file, creating missing directories. Edits files: accept_edits allows it inside the working directories. */
export function writeTool(): Tool<z.infer<typeof input>> {
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
      const path = toolPath(args.path, ctx);
      await mkdir(dirname(path), { recursive: true });
      await writeFile(path, args.content, "utf8");
      await recordRead(ctx, path, args.content);
      return `wrote ${args.path} (${args.content.length} characters)`;
    },
  });
}
