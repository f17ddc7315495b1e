import picomatch from "picomatch";
import { z } from "zod";
import type { PermissionContext } from "../permission/index.js";
import { functionTool } from "../tool/function-tool.js";
import type { Tool, ToolContext } from "../tool/types.js";
import { MEMORY_ROOT, type MemoryFiles, memoryPath, shownPath } from "./memory-files.js";

const COMMANDS = ["view", "create", "str_replace", "insert", "delete", "rename"] as const;
type Command = (typeof COMMANDS)[number];

// One flat object rather than a union: providers want an object at the top of a tool schema.
const input = z.object({
  command: z.enum(COMMANDS).describe("What to do"),
  path: z.string().optional().describe(`The file or directory, under ${MEMORY_ROOT} (all but rename)`),
  view_range: z
    .tuple([z.number().int().min(1), z.number().int().min(-1)])
    .optional()
    .describe("view: first and last line to show (1-based; -1 = to the end)"),
  file_text: z.string().optional().describe("create: the whole content of the file"),
  old_str: z.string().optional().describe("str_replace: the exact text to replace (must occur once)"),
  new_str: z.string().optional().describe("str_replace: the text to put in its place"),
  insert_line: z
    .number()
    .int()
    .min(0)
    .optional()
    .describe("insert: the line after which to insert (0 = at the top)"),
  insert_text: z.string().optional().describe("insert: the text to insert"),
  old_path: z.string().optional().describe("rename: the current path"),
  new_path: z.string().optional().describe("rename: the new path"),
});
export type MemoryToolInput = z.infer<typeof input>;

export interface MemoryToolOptions {
  /** The memory directory: one for every call, or one per call (e.g. per user in a service). */
  files: MemoryFiles | ((ctx: ToolContext) => MemoryFiles | Promise<MemoryFiles>);
  /** Tool name (default `Memory`); permission rules name it: `Memory`, `Memory(/memories/prefs/**)`. */
  name?: string;
  /** Largest file the tool writes, in bytes (default 100,000). */
  maxFileBytes?: number;
}

export const MEMORY_TOOL_DESCRIPTION = `Your long-term memory: a directory of notes (${MEMORY_ROOT}) that you keep across conversations.
Start a task by viewing ${MEMORY_ROOT} to recall what you learned earlier. Record what will help later (the user's preferences, decisions, progress) as short Markdown files, and keep them tidy: update or delete notes that are stale.
Commands: view (a directory lists its files, a file shows numbered lines), create (write a whole file), str_replace (replace text that occurs once), insert (add lines after insert_line), delete (a file or directory), rename (old_path → new_path).`;

/** The paths a call names, as the model wrote them (rename: both). */
function pathsOfInput(value: unknown): string[] {
  if (typeof value !== "object" || value === null) return [];
  const record = value as Record<string, unknown>;
  const keys = record.command === "rename" ? ["old_path", "new_path"] : ["path"];
  return keys.map((key) => record[key]).filter((path): path is string => typeof path === "string");
}

/**
 * Agentic memory: the model reads and edits its own notes in a memory directory, with the commands
 * coding agents use for memory files. Every path is confined to the directory (`..`, outside
 * absolute paths and links out are refused by `memoryPath` and the MemoryFiles backing).
 * `view` is read-only and auto-allowed; the writing commands go through the permission engine like
 * an edit: asked in default mode, allowed in accept_edits and bypass mode and by rules such as
 * `Memory` or `Memory(/memories/notes/**)`, denied in explore mode.
 */
export function memoryTool(options: MemoryToolOptions): Tool<MemoryToolInput> {
  const name = options.name ?? "Memory";
  const maxBytes = options.maxFileBytes ?? 100_000;
  const filesFor = async (ctx: ToolContext) =>
    typeof options.files === "function" ? options.files(ctx) : options.files;

  return functionTool({
    name,
    description: MEMORY_TOOL_DESCRIPTION,
    input,
    readOnly: false,
    concurrencySafe: false,
    editsFiles: true,
    isReadOnly: (value) => (value as { command?: unknown } | null)?.command === "view",
    checkPermissions(_value: unknown, context: PermissionContext) {
      if (context.mode === "accept_edits") {
        return {
          behavior: "allow",
          reason: "memory edits are allowed in accept_edits mode (they stay in the memory directory)",
        };
      }
      return { behavior: "passthrough" };
    },
    matchRule(content, value, match) {
      const paths = pathsOfInput(value).map((path) => {
        try {
          return shownPath(memoryPath(path));
        } catch {
          return path;
        }
      });
      if (paths.length === 0) return false;
      const test = picomatch(content, { dot: true });
      // An allow rule must cover every path a call touches; a deny or ask rule any of them.
      return match?.behavior === "allow" ? paths.every((p) => test(p)) : paths.some((p) => test(p));
    },
    suggestRules: () => [`${name}(${MEMORY_ROOT}/**)`],
    async execute(args, ctx) {
      const files = await filesFor(ctx);
      return runCommand(files, args, maxBytes);
    },
  });
}

function required<K extends keyof MemoryToolInput>(
  args: MemoryToolInput,
  key: K,
): NonNullable<MemoryToolInput[K]> {
  const value = args[key];
  if (value === undefined || value === null) throw new Error(`${args.command}: "${String(key)}" is required`);
  return value as NonNullable<MemoryToolInput[K]>;
}

async function runCommand(files: MemoryFiles, args: MemoryToolInput, maxBytes: number): Promise<string> {
  const command: Command = args.command;
  const checkSize = (text: string) => {
    const size = Buffer.byteLength(text);
    if (size > maxBytes)
      throw new Error(`the file would be ${size} bytes; memory files are limited to ${maxBytes}`);
  };
  const readExisting = async (path: string) => {
    const text = await files.read(path);
    if (text === undefined)
      throw new Error(`${shownPath(path)} is not a file; view ${MEMORY_ROOT} to see what exists`);
    return text;
  };

  switch (command) {
    case "view": {
      const path = memoryPath(required(args, "path"));
      const kind = await files.kind(path);
      if (kind === undefined) {
        if (path === "") return `${MEMORY_ROOT} is empty`;
        throw new Error(`${shownPath(path)} does not exist`);
      }
      if (kind === "directory") return listing(path, await files.list(path));
      return numbered(await readExisting(path), args.view_range);
    }
    case "create": {
      const path = memoryPath(required(args, "path"));
      if (path === "") throw new Error(`create: give a file path under ${MEMORY_ROOT}/`);
      const text = required(args, "file_text");
      checkSize(text);
      const existed = (await files.kind(path)) === "file";
      await files.write(path, text);
      return `${existed ? "replaced" : "created"} ${shownPath(path)}`;
    }
    case "str_replace": {
      const path = memoryPath(required(args, "path"));
      const oldStr = required(args, "old_str");
      const newStr = args.new_str ?? "";
      const text = await readExisting(path);
      const count = oldStr === "" ? 0 : text.split(oldStr).length - 1;
      if (count === 0)
        throw new Error(
          `the text to replace was not found in ${shownPath(path)}; view it and copy the text exactly`,
        );
      if (count > 1)
        throw new Error(
          `the text to replace occurs ${count} times in ${shownPath(path)}; include more of the surrounding text`,
        );
      const updated = text.replace(oldStr, () => newStr);
      checkSize(updated);
      await files.write(path, updated);
      return `edited ${shownPath(path)}`;
    }
    case "insert": {
      const path = memoryPath(required(args, "path"));
      const at = required(args, "insert_line");
      const insertText = required(args, "insert_text");
      const lines = (await readExisting(path)).split("\n");
      if (at > lines.length)
        throw new Error(`insert_line ${at} is past the end of ${shownPath(path)} (${lines.length} lines)`);
      lines.splice(at, 0, ...insertText.replace(/\n$/, "").split("\n"));
      const updated = lines.join("\n");
      checkSize(updated);
      await files.write(path, updated);
      return `inserted text after line ${at} of ${shownPath(path)}`;
    }
    case "delete": {
      const path = memoryPath(required(args, "path"));
      if (path === "")
        throw new Error(`delete: ${MEMORY_ROOT} itself cannot be deleted; name a file or directory in it`);
      if (!(await files.delete(path))) throw new Error(`${shownPath(path)} does not exist`);
      return `deleted ${shownPath(path)}`;
    }
    case "rename": {
      const from = memoryPath(required(args, "old_path"));
      const to = memoryPath(required(args, "new_path"));
      if (from === "" || to === "")
        throw new Error(`rename: ${MEMORY_ROOT} itself cannot be renamed or replaced`);
      if (to === from || to.startsWith(`${from}/`))
        throw new Error(`rename: cannot move ${shownPath(from)} into itself`);
      if ((await files.kind(from)) === undefined) throw new Error(`${shownPath(from)} does not exist`);
      await files.rename(from, to);
      return `renamed ${shownPath(from)} to ${shownPath(to)}`;
    }
  }
}

function listing(dir: string, entries: Awaited<ReturnType<MemoryFiles["list"]>>): string {
  if (entries.length === 0) return `${shownPath(dir)} is empty`;
  const lines = entries.map((entry) =>
    entry.kind === "directory"
      ? `${shownPath(entry.path)}/`
      : `${shownPath(entry.path)} (${entry.size ?? 0} bytes)`,
  );
  return `${shownPath(dir)}:\n${lines.join("\n")}`;
}

function numbered(text: string, range: [number, number] | undefined): string {
  const lines = text.split("\n");
  const start = range ? range[0] : 1;
  const end = range && range[1] !== -1 ? Math.min(range[1], lines.length) : lines.length;
  if (start > lines.length)
    throw new Error(`view_range starts at line ${start} but the file has ${lines.length} lines`);
  const width = String(end).length;
  return lines
    .slice(start - 1, end)
    .map((line, i) => `${String(start + i).padStart(width, " ")}\t${line}`)
    .join("\n");
}
