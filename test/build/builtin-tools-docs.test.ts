import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { builtinToolsTable, TOOLS_DOCS_FILE, withToolsTable } from "../../scripts/builtin-tools-docs.js";
import { BUILTIN_TOOL_NAMES } from "../../src/tool/builtin/index.js";
import { functionTool } from "../../src/tool/index.js";

const FIX = "the built-in tools changed: run `npm run docs:tools` (or `npm run api:report`) and commit docs/";

describe("docs/permissions.md's list of the built-in tools (scripts/builtin-tools-docs.ts)", () => {
  const page = readFileSync(TOOLS_DOCS_FILE, "utf8");

  it("is what the script writes from builtinTools()", () => {
    expect(withToolsTable(page), FIX).toBe(page);
  });

  it("has one row per built-in tool, in BUILTIN_TOOL_NAMES order", () => {
    const rows = builtinToolsTable()
      .split("\n")
      .slice(2)
      .map((row) => /^\| `(\w+)` \|/.exec(row)?.[1]);
    expect(rows).toEqual([...BUILTIN_TOOL_NAMES]);
  });

  it("derives a row from the tool: flags, input fields (optional ones marked), description", () => {
    const ls = functionTool({
      name: "LS",
      description: "Lists one directory | its entries.",
      input: z.object({ path: z.string(), all: z.boolean().optional() }),
      readOnly: true,
      execute: () => "",
    });
    const edits = functionTool({
      name: "Touch",
      description: "Creates a file.",
      input: z.object({ path: z.string() }),
      readOnly: false,
      editsFiles: true,
      isReadOnly: () => false,
      execute: () => "",
    });
    const rows = builtinToolsTable([ls, edits]).split("\n").slice(2);
    expect(rows).toEqual([
      "| `LS` | yes | no | `path`, `all?` | Lists one directory \\| its entries. |",
      "| `Touch` | per call | yes | `path` | Creates a file. |",
    ]);
  });

  it("refuses a page without its markers, naming them", () => {
    expect(() => withToolsTable("# Permissions\n")).toThrow(/must hold the markers "<!-- built-in tools/);
  });
});
