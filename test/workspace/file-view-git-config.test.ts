import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { DEFAULT_CREDENTIAL_LISTS } from "../../src/permission/index.js";
import { LocalWorkspace } from "../../src/workspace/index.js";
import { tempDir } from "./helpers.js";

/**
 * The file tools see a git config as the sandbox shows it: a Read the engine asks about (`.git`)
 * and a person approves, or a bypass session, gets no token; an Edit cannot write the copy back.
 */
describe("the workspace file view and git configs with credentials", () => {
  const { dir: root, cleanup } = tempDir("file-view-git-");
  const withToken =
    '[core]\n\trepositoryformatversion = 0\n[remote "origin"]\n\turl = https://u:GIT-TOKEN@h/r\n';
  mkdirSync(join(root, ".git"));
  writeFileSync(join(root, ".git", "config"), withToken);
  mkdirSync(join(root, "bare.git"));
  writeFileSync(join(root, "bare.git", "config"), withToken);
  mkdirSync(join(root, "app"));
  writeFileSync(join(root, "app", "config"), "[database]\n\tpassword = APP\n");
  const workspace = new LocalWorkspace({ root });
  afterAll(async () => {
    await workspace.close();
    cleanup();
  });

  it.each([".git/config", "bare.git/config"])("reads %s without its credentials", async (path) => {
    const text = (await workspace.readFile(path)).toString();
    expect(text).not.toContain("GIT-TOKEN");
    expect(text).toContain('url = "https://h/r"');
    expect(workspace.files.hidden).toEqual(DEFAULT_CREDENTIAL_LISTS);
  });

  it("is not shown to a search (Grep would print its real lines)", async () => {
    expect(await workspace.files.shows(join(root, ".git", "config"))).toBe(false);
    expect(await workspace.files.shows(join(root, "app", "config"))).toBe(true);
  });

  it("refuses to write it (the copy would replace the real file), and leaves it as it was", async () => {
    await expect(workspace.writeFile(".git/config", "[core]\n")).rejects.toThrow(/holding credentials/);
    expect(readFileSync(join(root, ".git", "config"), "utf8")).toBe(withToken);
  });

  it("leaves other files named config, and configs without credentials, as they are", async () => {
    expect((await workspace.readFile("app/config")).toString()).toContain("APP");
    mkdirSync(join(root, "clean", ".git"), { recursive: true });
    await workspace.writeFile("clean/.git/config", "[core]\n\tbare = false\n");
    expect((await workspace.readFile("clean/.git/config")).toString()).toBe("[core]\n\tbare = false\n");
  });
});
