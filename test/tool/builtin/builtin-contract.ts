import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { decidePermission, type PermissionMode } from "../../../src/permission/index.js";
import { type BUILTIN_TOOL_NAMES, builtinTools, type FileView } from "../../../src/tool/builtin/index.js";
import type { Tool } from "../../../src/tool/index.js";
import { permission, run, tempDir, toolContext } from "./helpers.js";

export type BuiltinToolName = (typeof BUILTIN_TOOL_NAMES)[number];

/** What a built-in tool's contract is checked with. */
export interface BuiltinContractRow {
  /** readOnly, concurrencySafe, editsFiles (accept_edits allows it inside the working directories). */
  flags: [boolean, boolean, boolean];
  /** A call on `a.txt` (it holds `hello\n`) inside the working directory. */
  inside: unknown;
  /** A call on a path outside it. */
  outside: unknown;
  /** A call on the credential file `.env`; `null`: the tool never shows a file's content. */
  secret: unknown;
  /** `false` for a tool confined by its process runner (Bash) rather than by the file view. */
  fileView?: false;
}

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

const builtin = (name: BuiltinToolName, tools: Tool[]): Tool => {
  const tool = tools.find((candidate) => candidate.name === name);
  if (!tool) throw new Error(`${name} is not in builtinTools()`);
  return tool;
};

/**
 * What every built-in tool promises, whichever it is: its flags, the paths it declares and the rule
 * it offers, the verdicts inside, outside and on a credential file in each mode, and that it reaches
 * files only through its file view. Each built-in tool calls this once, from its own test
 * (`builtin-contract.test.ts` fails until every name in BUILTIN_TOOL_NAMES does).
 */
export function describeBuiltinContract(name: BuiltinToolName, calls: BuiltinContractRow): void {
  describe(`${name}: the built-in tool contract`, () => {
    const { dir, cleanup } = tempDir();
    afterAll(cleanup);
    writeFileSync(join(dir, "a.txt"), "hello\n");
    writeFileSync(join(dir, ".env"), "TOKEN=hunter2\n");
    const tool = builtin(name, builtinTools());
    const decide = (input: unknown, mode: PermissionMode) =>
      decidePermission(tool, input, permission(dir, mode));

    it("has the flags its row says", () => {
      expect([tool.readOnly, tool.concurrencySafe, tool.editsFiles === true]).toEqual(calls.flags);
    });

    it("names the paths it touches and offers a rule when it asks", () => {
      expect(tool.pathsOf, "without pathsOf the engine guesses paths from the arguments").toBeTypeOf(
        "function",
      );
      expect(tool.matchRule).toBeTypeOf("function");
      expect(tool.suggestRules?.(calls.inside)).toEqual([expect.stringMatching(new RegExp(`^${name}\\(`))]);
    });

    it("inside the working directory: allowed if read-only, else asks", async () => {
      const readOnly = tool.isReadOnly?.(calls.inside) ?? tool.readOnly;
      expect((await decide(calls.inside, "default")).behavior).toBe(readOnly ? "allow" : "ask");
      expect((await decide(calls.inside, "explore")).behavior).toBe(readOnly ? "allow" : "deny");
    });

    it("outside the working directory is never allowed unasked", async () => {
      for (const mode of ["default", "accept_edits"] as const)
        expect((await decide(calls.outside, mode)).behavior, mode).toBe("ask");
      expect((await decide(calls.outside, "dont_ask")).behavior).toBe("deny");
    });

    it.skipIf(calls.secret === null)(
      "on a credential file is a safety ask, in every mode that asks",
      async () => {
        for (const mode of ["default", "accept_edits"] as const)
          expect(await decide(calls.secret, mode), mode).toMatchObject({ behavior: "ask", safety: true });
        for (const mode of ["dont_ask", "explore"] as const)
          expect((await decide(calls.secret, mode)).behavior, mode).toBe("deny");
      },
    );

    it.skipIf(calls.fileView === false)(
      "reaches files only through the file view it is given (a workspace's confines it)",
      async () => {
        const viewed = builtin(name, builtinTools({ files: refusing }));
        await expect(run(viewed, calls.inside, toolContext(dir))).rejects.toThrow(/refused by the view/);
      },
    );
  });
}
