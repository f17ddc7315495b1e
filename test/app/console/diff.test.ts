import { expect, it } from "vitest";
import { diffLines, fileChangeOf } from "../../../src/app/console/ui/diff.js";

it("diffs lines: removals before additions, unchanged lines kept", () => {
  expect(diffLines("buy milk\ncall mum", "buy oat milk\ncall mum")).toEqual([
    { kind: "removed", text: "buy milk" },
    { kind: "added", text: "buy oat milk" },
    { kind: "same", text: "call mum" },
  ]);
  expect(diffLines("", "new file")).toEqual([{ kind: "added", text: "new file" }]);
});

it("reads a proposed file change from Write/Edit-style arguments, and nothing from others", () => {
  expect(fileChangeOf({ file_path: "a.md", old_string: "x", new_string: "y" })).toEqual({
    path: "a.md",
    before: "x",
    after: "y",
  });
  expect(fileChangeOf({ path: "b.md", content: "hello" })).toEqual({
    path: "b.md",
    before: "",
    after: "hello",
  });
  expect(fileChangeOf({ command: "ls" })).toBeUndefined();
  expect(fileChangeOf("text")).toBeUndefined();
});
