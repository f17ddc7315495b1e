import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  realpathSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { Agent } from "../../src/agent/index.js";
import { fileMemoryFiles, type MemoryFiles, memoryTool, stateMemoryFiles } from "../../src/memory/index.js";
import { userMsg } from "../../src/message/index.js";
import { decidePermission, type PermissionContext, ruleFromString } from "../../src/permission/index.js";
import { InMemoryStateStore } from "../../src/state/index.js";
import { ScriptedModel } from "../../src/testing/index.js";
import type { Tool } from "../../src/tool/index.js";
import { toolContext } from "../tool/helpers.js";

async function run(tool: Tool, args: unknown): Promise<string> {
  return String(await tool.call(tool.parse(args), toolContext()));
}

let dir: string;
beforeEach(() => {
  dir = realpathSync(mkdtempSync(join(tmpdir(), "agentscope-memory-")));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const backings: Array<[string, () => MemoryFiles]> = [
  ["file system", () => fileMemoryFiles(join(dir, "memories"))],
  ["state store", () => stateMemoryFiles(new InMemoryStateStore(), { userId: "alice" })],
];

describe.each(backings)("memoryTool on the %s", (_name, makeFiles) => {
  it("creates, views, edits, inserts, renames and deletes notes", async () => {
    const tool = memoryTool({ files: makeFiles() });
    expect(await run(tool, { command: "view", path: "/memories" })).toBe("/memories is empty");
    expect(
      await run(tool, {
        command: "create",
        path: "/memories/prefs.md",
        file_text: "# Prefs\nlanguage: English",
      }),
    ).toBe("created /memories/prefs.md");
    await run(tool, {
      command: "str_replace",
      path: "/memories/prefs.md",
      old_str: "English",
      new_str: "French",
    });
    await run(tool, {
      command: "insert",
      path: "/memories/prefs.md",
      insert_line: 1,
      insert_text: "tone: brief",
    });
    expect(await run(tool, { command: "view", path: "/memories/prefs.md" })).toBe(
      "1\t# Prefs\n2\ttone: brief\n3\tlanguage: French",
    );
    expect(await run(tool, { command: "view", path: "/memories/prefs.md", view_range: [2, 2] })).toBe(
      "2\ttone: brief",
    );
    await run(tool, {
      command: "rename",
      old_path: "/memories/prefs.md",
      new_path: "/memories/user/prefs.md",
    });
    expect(await run(tool, { command: "view", path: "/memories" })).toBe(
      "/memories:\n/memories/user/\n/memories/user/prefs.md (36 bytes)",
    );
    await run(tool, { command: "delete", path: "/memories/user" });
    expect(await run(tool, { command: "view", path: "/memories" })).toBe("/memories is empty");
  });

  it("explains a failed edit so the model can fix it", async () => {
    const tool = memoryTool({ files: makeFiles() });
    await run(tool, { command: "create", path: "notes.md", file_text: "a\na\n" });
    await expect(
      run(tool, { command: "str_replace", path: "notes.md", old_str: "a", new_str: "b" }),
    ).rejects.toThrow("occurs 2 times");
    await expect(
      run(tool, { command: "str_replace", path: "notes.md", old_str: "zzz", new_str: "b" }),
    ).rejects.toThrow("not found");
    await expect(run(tool, { command: "view", path: "/memories/missing.md" })).rejects.toThrow(
      "does not exist",
    );
    await expect(run(tool, { command: "create", path: "x.md" })).rejects.toThrow('"file_text" is required');
  });

  it.each([
    "/memories/../secret.txt",
    "../secret.txt",
    "notes/../../secret.txt",
    "/etc/passwd",
    "/memoriesX/a.md",
    "a\\..\\b",
  ])("refuses the path %s", async (path) => {
    const tool = memoryTool({ files: makeFiles() });
    await expect(run(tool, { command: "create", path, file_text: "x" })).rejects.toThrow(
      /not allowed|outside|separator/,
    );
    await expect(run(tool, { command: "view", path })).rejects.toThrow(/not allowed|outside|separator/);
  });
});

describe("memoryTool confinement on the file system", () => {
  it("never writes through .. outside the directory", async () => {
    const tool = memoryTool({ files: fileMemoryFiles(join(dir, "memories")) });
    await expect(run(tool, { command: "create", path: "../escape.md", file_text: "x" })).rejects.toThrow();
    await expect(
      run(tool, { command: "rename", old_path: "/memories/a", new_path: "/memories/../escape" }),
    ).rejects.toThrow("not allowed");
    expect(existsSync(join(dir, "escape.md"))).toBe(false);
  });

  it("refuses a symlinked directory that points outside (read, write, list)", async () => {
    const outside = join(dir, "outside");
    mkdirSync(outside);
    writeFileSync(join(outside, "secret.txt"), "top secret");
    mkdirSync(join(dir, "memories"));
    symlinkSync(outside, join(dir, "memories", "link"));
    const tool = memoryTool({ files: fileMemoryFiles(join(dir, "memories")) });

    await expect(run(tool, { command: "view", path: "/memories/link/secret.txt" })).rejects.toThrow(
      "symbolic link",
    );
    await expect(
      run(tool, { command: "create", path: "/memories/link/planted.txt", file_text: "x" }),
    ).rejects.toThrow("symbolic link");
    await expect(run(tool, { command: "delete", path: "/memories/link/secret.txt" })).rejects.toThrow(
      "symbolic link",
    );
    expect(existsSync(join(outside, "planted.txt"))).toBe(false);
    expect(readFileSync(join(outside, "secret.txt"), "utf8")).toBe("top secret");
    // A listing does not descend into the link.
    expect(await run(tool, { command: "view", path: "/memories" })).not.toContain("secret");
  });

  it("refuses a symlinked file (no read through it, no write through it)", async () => {
    const target = join(dir, "target.txt");
    writeFileSync(target, "outside text");
    mkdirSync(join(dir, "memories"));
    symlinkSync(target, join(dir, "memories", "note.md"));
    const tool = memoryTool({ files: fileMemoryFiles(join(dir, "memories")) });

    await expect(run(tool, { command: "view", path: "/memories/note.md" })).rejects.toThrow("symbolic link");
    await expect(
      run(tool, { command: "create", path: "/memories/note.md", file_text: "overwritten" }),
    ).rejects.toThrow("symbolic link");
    await expect(
      run(tool, { command: "rename", old_path: "/memories/note.md", new_path: "/memories/moved.md" }),
    ).rejects.toThrow("symbolic link");
    expect(readFileSync(target, "utf8")).toBe("outside text");
  });
});

describe("memoryTool permissions", () => {
  const tool = memoryTool({ files: fileMemoryFiles(join(tmpdir(), "agentscope-memory-unused")) });
  const context = (mode: PermissionContext["mode"], rules: string[] = []): PermissionContext => ({
    mode,
    rules: rules.map((text) => ruleFromString(text, "allow", "config")),
    workingDirectories: [],
  });
  const write = { command: "create", path: "/memories/a.md", file_text: "x" };
  const view = { command: "view", path: "/memories" };

  it("allows reads without asking, even in explore mode", async () => {
    expect((await decidePermission(tool, view, context("default"))).behavior).toBe("allow");
    expect((await decidePermission(tool, view, context("explore"))).behavior).toBe("allow");
  });

  it("governs writes like an edit: ask by default, allow in accept_edits and bypass, deny in explore", async () => {
    const ask = await decidePermission(tool, write, context("default"));
    expect(ask.behavior).toBe("ask");
    expect(ask.suggestedRules).toContain("Memory(/memories/**)");
    expect((await decidePermission(tool, write, context("accept_edits"))).behavior).toBe("allow");
    expect((await decidePermission(tool, write, context("bypass"))).behavior).toBe("allow");
    expect((await decidePermission(tool, write, context("explore"))).behavior).toBe("deny");
    expect((await decidePermission(tool, write, context("dont_ask"))).behavior).toBe("deny");
  });

  it("matches path rules on the memory path; an allow rule must cover both ends of a rename", async () => {
    const rules = context("default", ["Memory(/memories/notes/**)"]);
    expect((await decidePermission(tool, { ...write, path: "/memories/notes/a.md" }, rules)).behavior).toBe(
      "allow",
    );
    expect((await decidePermission(tool, { ...write, path: "notes/a.md" }, rules)).behavior).toBe("allow");
    expect((await decidePermission(tool, write, rules)).behavior).toBe("ask");
    const rename = { command: "rename", old_path: "/memories/notes/a.md", new_path: "/memories/b.md" };
    expect((await decidePermission(tool, rename, rules)).behavior).toBe("ask");
  });

  it("pauses a reply for confirmation before the model writes a note, and lets it read freely", async () => {
    const files = fileMemoryFiles(join(dir, "memories"));
    const model = new ScriptedModel([
      { toolCalls: [{ name: "Memory", input: view }] },
      { toolCalls: [{ name: "Memory", input: write }] },
    ]);
    const agent = new Agent({ name: "a", model, toolkit: [memoryTool({ files })] });
    const events = [];
    for await (const event of agent.replyStream(userMsg("remember this"))) events.push(event);
    const results = events.filter((e) => e.type === "TOOL_RESULT_END");
    expect(results[0]).toMatchObject({ state: "success" });
    expect(events.at(-1)?.type).toBe("REQUIRE_USER_CONFIRM");
    expect(await files.kind("a.md")).toBeUndefined();
  });
});

describe("stateMemoryFiles", () => {
  it("keeps each user's notes apart in one store", async () => {
    const store = new InMemoryStateStore();
    const alice = memoryTool({ files: stateMemoryFiles(store, { userId: "alice" }) });
    const bob = memoryTool({ files: stateMemoryFiles(store, { userId: "bob" }) });
    await run(alice, { command: "create", path: "/memories/secret.md", file_text: "alice's" });
    expect(await run(bob, { command: "view", path: "/memories" })).toBe("/memories is empty");
    await expect(run(bob, { command: "view", path: "/memories/secret.md" })).rejects.toThrow(
      "does not exist",
    );
  });

  it("keeps concurrent writes from two replicas (compare-and-set, nothing lost)", async () => {
    const store = new InMemoryStateStore();
    const a = stateMemoryFiles(store, { userId: "alice" });
    const b = stateMemoryFiles(store, { userId: "alice" });
    await Promise.all(
      Array.from({ length: 10 }, (_, i) => (i % 2 === 0 ? a : b).write(`n${i}.md`, String(i))),
    );
    expect((await a.list("")).map((e) => e.path)).toHaveLength(10);
  });
});
