import { mkdirSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { BUILTIN_TOOL_NAMES } from "../../src/tool/builtin/index.js";
import { LocalWorkspace, WorkspacePathError } from "../../src/workspace/index.js";
import { tempDir } from "./helpers.js";

describe("LocalWorkspace", () => {
  const { dir: root, cleanup } = tempDir();
  const outside = tempDir("agentscope-outside-");
  afterAll(() => {
    cleanup();
    outside.cleanup();
  });
  writeFileSync(join(outside.dir, "secret.txt"), "outside");

  it("writes, reads and lists files relative to its root", async () => {
    const workspace = new LocalWorkspace({ root });
    expect(await workspace.writeFile("src/a.txt", "alpha")).toBe(join(root, "src", "a.txt"));
    await workspace.writeFile("b.txt", new Uint8Array([104, 105]));
    expect((await workspace.readFile("src/a.txt")).toString()).toBe("alpha");
    expect((await workspace.readFile(join(root, "b.txt"))).toString()).toBe("hi");
    const top = await workspace.listFiles();
    expect(top.map((entry) => [entry.path, entry.type, entry.size])).toEqual([
      ["b.txt", "file", 2],
      ["src", "directory", 0],
    ]);
    const all = await workspace.listFiles(".", { recursive: true });
    expect(all.map((entry) => entry.path)).toEqual(["b.txt", "src", "src/a.txt"]);
    expect((await workspace.listFiles("src")).map((entry) => entry.path)).toEqual(["src/a.txt"]);
  });

  it("refuses paths that leave the root, through .. or a symlink", async () => {
    const workspace = new LocalWorkspace({ root });
    await expect(workspace.readFile("../x")).rejects.toBeInstanceOf(WorkspacePathError);
    await expect(workspace.readFile(join(outside.dir, "secret.txt"))).rejects.toThrow(
      /outside the workspace/,
    );
    symlinkSync(outside.dir, join(root, "escape"));
    await expect(workspace.readFile("escape/secret.txt")).rejects.toThrow(/through a symlink/);
    await expect(workspace.writeFile("escape/new.txt", "x")).rejects.toBeInstanceOf(WorkspacePathError);
    await expect(workspace.listFiles("escape")).rejects.toBeInstanceOf(WorkspacePathError);
    await expect(workspace.listFiles("missing")).rejects.toThrow(/does not exist in the workspace/);
  });

  it("runs commands in its root and reports how they ended", async () => {
    const workspace = new LocalWorkspace({ root });
    mkdirSync(join(root, "sub"), { recursive: true });
    expect(await workspace.exec("pwd")).toEqual({ output: `${root}\n`, exitCode: 0, killed: false });
    expect((await workspace.exec("pwd", { cwd: "sub" })).output).toBe(`${join(root, "sub")}\n`);
    expect(await workspace.exec("echo no; exit 3")).toMatchObject({ exitCode: 3, killed: false });
    expect(await workspace.exec("sleep 5", { timeoutMs: 100 })).toMatchObject({
      exitCode: null,
      killed: true,
    });
    await expect(workspace.exec("pwd", { cwd: "../.." })).rejects.toBeInstanceOf(WorkspacePathError);
  });

  it("binds the built-in tools and the working directory for an agent", async () => {
    const workspace = new LocalWorkspace({ root, instructions: "Write reports in reports/." });
    const options = await workspace.agentOptions({
      systemPrompt: "You help.",
      permission: { mode: "accept_edits" },
    });
    expect(options.toolkit.list().map((tool) => tool.name)).toEqual([...BUILTIN_TOOL_NAMES]);
    expect(options.permission).toEqual({ mode: "accept_edits", workingDirectories: [root] });
    expect(options.systemPrompt).toBe(
      `You help.\n\nYour workspace is ${root}: the working directory of your tools. Keep the files you create there.\nWrite reports in reports/.`,
    );
    await workspace.close();
    expect(() => workspace.listFiles()).toThrow(/is closed/);
  });

  it("wants an absolute root", () => {
    expect(() => new LocalWorkspace({ root: "relative/dir" })).toThrow(/absolute path/);
  });
});
