import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { decidePermission, type PermissionMode } from "../../../src/permission/index.js";
import { BUILTIN_TOOL_NAMES, builtinTools, type FileView } from "../../../src/tool/builtin/index.js";
import type { Tool } from "../../../src/tool/index.js";
import { permission, run, tempDir, toolContext } from "./helpers.js";

/**
 * What every built-in tool promises, whichever it is. A new built-in tool joins by adding its row
 * (the table does not compile until every name in BUILTIN_TOOL_NAMES has one): a call on a file
 * inside the working directory, one outside it, and one on a credential file.
 */
/**
 * `flags`: readOnly, concurrencySafe, editsFiles (accept_edits allows it inside the working
 * directories). `secret: null`: the tool never shows a file's content, so a credential file is not
 * asked about.
 */
type Row = { flags: [boolean, boolean, boolean]; inside: unknown; outside: unknown; secret: unknown };
const CALLS = {
  Bash: {
    flags: [false, false, false],
    inside: { command: "cat a.txt" },
    outside: { command: "cat /etc/hostname" },
    secret: { command: "cat .env" },
  },
  Read: {
    flags: [true, true, false],
    inside: { path: "a.txt" },
    outside: { path: "/etc/hostname" },
    secret: { path: ".env" },
  },
  Write: {
    flags: [false, false, true],
    inside: { path: "a.txt", content: "x" },
    outside: { path: "/etc/agentscope-never.txt", content: "x" },
    secret: { path: ".env", content: "x" },
  },
  Edit: {
    flags: [false, false, true],
    inside: { path: "a.txt", oldString: "hello", newString: "bye" },
    outside: { path: "/etc/hostname", oldString: "a", newString: "b" },
    secret: { path: ".env", oldString: "a", newString: "b" },
  },
  // Glob returns names, never contents: listing `.env` is not reading it (a workspace's view hides it).
  Glob: {
    flags: [true, true, false],
    inside: { pattern: "*.txt" },
    outside: { pattern: "/etc/*" },
    secret: null,
  },
  Grep: {
    flags: [true, true, false],
    inside: { pattern: "hello" },
    outside: { pattern: "x", path: "/etc" },
    secret: { pattern: "x", path: ".env" },
  },
} satisfies Record<(typeof BUILTIN_TOOL_NAMES)[number], Row>;

const { dir, cleanup } = tempDir();
afterAll(cleanup);
writeFileSync(join(dir, "a.txt"), "hello\n");
writeFileSync(join(dir, ".env"), "TOKEN=hunter2\n");

const tools = builtinTools();
const decide = (tool: Tool, input: unknown, mode: PermissionMode) =>
  decidePermission(tool, input, permission(dir, mode));
const rows = tools.map((tool) => [tool.name, tool, CALLS[tool.name as keyof typeof CALLS]] as const);

describe("every built-in tool", () => {
  it("is in BUILTIN_TOOL_NAMES, in the order builtinTools returns them", () => {
    expect(tools.map((tool) => tool.name)).toEqual([...BUILTIN_TOOL_NAMES]);
  });

  it.each(rows)("%s has the flags its row says", (_name, tool, calls) => {
    expect([tool.readOnly, tool.concurrencySafe, tool.editsFiles === true]).toEqual(calls.flags);
  });

  it.each(rows)("%s names the paths it touches and offers a rule when it asks", (_name, tool, calls) => {
    expect(tool.pathsOf, "without pathsOf the engine guesses paths from the arguments").toBeTypeOf(
      "function",
    );
    expect(tool.matchRule).toBeTypeOf("function");
    expect(tool.suggestRules?.(calls.inside)).toEqual([
      expect.stringMatching(new RegExp(`^${tool.name}\\(`)),
    ]);
  });

  it.each(rows)(
    "%s inside the working directory: allowed if read-only, else asks",
    async (_name, tool, calls) => {
      const readOnly = tool.isReadOnly?.(calls.inside) ?? tool.readOnly;
      expect((await decide(tool, calls.inside, "default")).behavior).toBe(readOnly ? "allow" : "ask");
      expect((await decide(tool, calls.inside, "explore")).behavior).toBe(readOnly ? "allow" : "deny");
    },
  );

  it.each(rows)("%s outside the working directory is never allowed unasked", async (_name, tool, calls) => {
    for (const mode of ["default", "accept_edits"] as const)
      expect((await decide(tool, calls.outside, mode)).behavior, mode).toBe("ask");
    expect((await decide(tool, calls.outside, "dont_ask")).behavior).toBe("deny");
  });

  it.each(rows.filter(([, , calls]) => calls.secret !== null))(
    "%s on a credential file is a safety ask, in every mode that asks",
    async (_name, tool, calls) => {
      for (const mode of ["default", "accept_edits"] as const)
        expect(await decide(tool, calls.secret, mode), mode).toMatchObject({ behavior: "ask", safety: true });
      for (const mode of ["dont_ask", "explore"] as const)
        expect((await decide(tool, calls.secret, mode)).behavior, mode).toBe("deny");
    },
  );

  // Bash is confined by its runner (the workspace's sandbox), the others by the file view.
  const refusing: FileView = {
    kind: "refusing",
    resolve: async (path) => {
      throw new Error(`refused by the view: ${path}`);
    },
    read: async () => Promise.reject(new Error("refused by the view")),
    write: async () => Promise.reject(new Error("refused by the view")),
    list: async () => Promise.reject(new Error("refused by the view")),
    shows: async () => false,
    searchExclusions: [],
  };
  const viewed = builtinTools({ files: refusing }).filter((tool) => tool.name !== "Bash");

  it.each(viewed.map((tool) => [tool.name, tool] as const))(
    "%s reaches files only through the file view it is given (a workspace's confines it)",
    async (name, tool) => {
      const call = CALLS[name as keyof typeof CALLS].inside;
      await expect(run(tool, call, toolContext(dir))).rejects.toThrow(/refused by the view/);
    },
  );
});
