import { expect, it } from "vitest";
import {
  changeAgainst,
  diffLines,
  fileChangeOf,
  proposedChangeOf,
  withContext,
} from "../../../src/app/console/ui/diff.js";

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

it("reads the built-in Edit's oldString/newString and replaceAll, and refuses arrays and empty paths", () => {
  expect(proposedChangeOf({ path: "a.md", oldString: "x", newString: "y", replaceAll: true })).toEqual({
    kind: "edit",
    path: "a.md",
    oldText: "x",
    newText: "y",
    replaceAll: true,
  });
  expect(proposedChangeOf({ path: "", content: "x" })).toBeUndefined();
  expect(proposedChangeOf([{ path: "a.md", content: "x" }])).toBeUndefined();
  expect(proposedChangeOf({ path: 7, content: "x" })).toBeUndefined();
});

it("diffs a write against the file as it is, says 'new file' when there is none, and applies an edit to the file", () => {
  const write = { kind: "write", path: "n.md", content: "a\nB\n" } as const;
  expect(changeAgainst(write, "a\nb\n")).toEqual({
    path: "n.md",
    before: "a\nb\n",
    after: "a\nB\n",
    basis: "file",
  });
  expect(changeAgainst(write, undefined).basis).toBe("new file");
  expect(changeAgainst(write, null).basis).toBe("snippet");
  const edit = { kind: "edit", path: "n.md", oldText: "b", newText: "c", replaceAll: true } as const;
  expect(changeAgainst(edit, "b\na\nb").after).toBe("c\na\nc");
  expect(changeAgainst({ ...edit, replaceAll: false }, "b\na\nb").after).toBe("c\na\nb");
  // Text the file does not hold (or a `$&` pattern) never corrupts the preview: the snippet is shown.
  expect(changeAgainst(edit, "nothing here")).toEqual({
    path: "n.md",
    before: "b",
    after: "c",
    basis: "snippet",
  });
  expect(changeAgainst({ ...edit, newText: "$&$&", replaceAll: false }, "b").after).toBe("$&$&");
});

it("keeps three lines of context around changes and counts what it leaves out", () => {
  const before = Array.from({ length: 20 }, (_, i) => `line ${i}`).join("\n");
  const after = before.replace("line 10", "line ten");
  const shown = withContext(diffLines(before, after));
  expect(shown[0]).toEqual({ kind: "skipped", text: "7 unchanged lines" });
  expect(shown.filter((l) => l.kind !== "skipped").map((l) => l.text)).toEqual([
    "line 7",
    "line 8",
    "line 9",
    "line 10",
    "line ten",
    "line 11",
    "line 12",
    "line 13",
  ]);
  expect(shown.at(-1)).toEqual({ kind: "skipped", text: "6 unchanged lines" });
});
