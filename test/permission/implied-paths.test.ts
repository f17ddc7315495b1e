import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import {
  decideCall,
  decidePermission,
  impliedPaths,
  type PermissionContext,
  type PermissionMode,
  type PermissionSubject,
} from "../../src/permission/index.js";

/**
 * A tool that declares no `pathsOf` (a function or MCP tool) cannot show the engine its paths: its
 * arguments that name places on disk count as its paths, for the session's boundary and for the
 * read-only fast path. Before, `{ path: "/etc/passwd" }` passed both without a look.
 */
const root = realpathSync(mkdtempSync(join(tmpdir(), "implied-paths-")));
afterAll(() => rmSync(root, { recursive: true, force: true }));
const inside = join(root, "ws");
const other = join(root, "other");
mkdirSync(join(inside, "notes"), { recursive: true });
mkdirSync(other);
writeFileSync(join(other, "secret.txt"), "s\n");
writeFileSync(join(inside, "notes", "a.md"), "a\n");
symlinkSync(other, join(inside, "link"));

/** A read-only function tool with no pathsOf, e.g. an MCP server's read_file. */
const readFile: PermissionSubject = { name: "mcp__fs__read_file", readOnly: true };
/** The same tool, declaring that its strings are never paths. */
const declaresNone: PermissionSubject = { ...readFile, name: "lookup", pathsOf: () => [] };

const context = (mode: PermissionMode, boundary = true): PermissionContext => ({
  mode,
  rules: [],
  workingDirectories: [inside],
  ...(boundary ? { boundary: { directory: inside } } : {}),
});
const MODES: PermissionMode[] = ["default", "accept_edits", "dont_ask", "bypass", "explore"];

describe("a tool that declares no paths is judged on the places its arguments name", () => {
  it.each([
    { path: join(other, "secret.txt") },
    { path: join(other, "new.txt") },
    { path: "../other/secret.txt" },
    { path: "link/secret.txt" },
    { path: "/etc/passwd" },
    { path: `file://${join(other, "secret.txt")}` },
    { files: [{ name: join(other, "secret.txt") }] },
  ])("%j leaves the session's boundary: denied in every mode, no approval lifts it", async (input) => {
    for (const mode of MODES) {
      const decision = await decidePermission(readFile, input, context(mode));
      expect(decision, mode).toMatchObject({
        behavior: "deny",
        reason: expect.stringContaining("declares no paths"),
      });
    }
    const verdict = await decideCall({
      call: { id: "c1", name: readFile.name },
      subject: readFile,
      input,
      context: context("bypass"),
      decide: async () => ({ behavior: "allow", reason: "a permissive decider" }),
      approval: { edited: false },
    });
    expect(verdict.behavior).toBe("deny");
  });

  it.each([
    { path: "notes/a.md" },
    { path: join(inside, "notes", "a.md") },
    { query: "/v1/items" },
    { query: "read the docs and/or the notes" },
    { text: "see /etc/passwd for the format" },
    { count: 3, flag: true },
  ])("%j stays inside (or names no place): read-only, allowed in every mode", async (input) => {
    for (const mode of MODES)
      expect((await decidePermission(readFile, input, context(mode))).behavior, mode).toBe("allow");
  });

  it("without a boundary, a place outside the working directories or a dangerous name is no read-only fast path", async () => {
    for (const input of [{ path: "/etc/passwd" }, { path: join(other, "secret.txt") }, { path: ".env" }]) {
      expect((await decidePermission(readFile, input, context("explore", false))).behavior).toBe("deny");
      expect((await decidePermission(readFile, input, context("default", false))).behavior).toBe("ask");
    }
    const dangerous = await decidePermission(readFile, { path: ".env" }, context("default", false));
    expect(dangerous).toMatchObject({ behavior: "ask", safety: true });
    expect(
      (await decidePermission(readFile, { path: "notes/a.md" }, context("explore", false))).behavior,
    ).toBe("allow");
  });

  it("a tool that declares pathsOf is judged on what it declares", async () => {
    expect(
      (await decidePermission(declaresNone, { query: "/etc/passwd" }, context("explore"))).behavior,
    ).toBe("allow");
  });

  it("impliedPaths: what counts as a place on disk", () => {
    const ctx = context("default", false);
    expect(
      impliedPaths(
        { a: "/etc/passwd", b: "/no/such/place", c: "x", d: [".env", "link/x"], e: "/memories/notes.md" },
        ctx,
      ),
    ).toEqual(["/etc/passwd", ".env", "link/x"]);
    const deep = { a: { b: { c: { d: { e: { f: { g: { h: { i: "/etc/passwd" } } } } } } } } };
    expect(impliedPaths(deep, ctx)).toEqual([]);
  });
});
