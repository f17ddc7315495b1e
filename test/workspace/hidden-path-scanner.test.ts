import { linkSync, mkdirSync, readFileSync, renameSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { afterAll, describe, expect, it } from "vitest";
import { DEFAULT_CREDENTIAL_LISTS } from "../../src/permission/index.js";
import { HiddenPathScanner, type ScanLimits } from "../../src/workspace/hidden-path-scanner.js";
import { tempDir } from "./helpers.js";

const temp = tempDir("hidden-scan-");
afterAll(temp.cleanup);
let count = 0;

/** A fresh workspace with `files` (path → content) and a scanner over it. */
function workspace(files: Record<string, string>, limits?: ScanLimits, now?: () => bigint) {
  const root = join(temp.dir, `ws${count++}`);
  mkdirSync(root);
  for (const [path, content] of Object.entries(files)) {
    mkdirSync(join(root, path, ".."), { recursive: true });
    writeFileSync(join(root, path), content);
  }
  const scanner = new HiddenPathScanner(root, DEFAULT_CREDENTIAL_LISTS, { limits, now });
  const relative = (paths: string[] = []) => paths.map((path) => path.slice(root.length + 1)).sort();
  const scan = async () => {
    const hidden = await scanner.scan();
    return {
      files: relative(hidden.files),
      directories: relative(hidden.directories),
      replaced: relative(hidden.replaced?.map((entry) => entry.path)),
      copies: Object.fromEntries(
        (hidden.replaced ?? []).map((entry) => [
          entry.path.slice(root.length + 1),
          readFileSync(entry.copy, "utf8"),
        ]),
      ),
    };
  };
  return { root, scan };
}

const TOKEN_CONFIG =
  '[core]\n\trepositoryformatversion = 0\n[remote "origin"]\n\turl = https://u:GIT-TOKEN@h/r\n';

describe("the hidden-path scan looks everywhere an attacker can put a secret", () => {
  it("finds credential files in node_modules at any depth and in .git", async () => {
    const { scan } = workspace({
      "node_modules/pkg/.env": "x",
      "node_modules/@scope/pkg/lib/deep/.npmrc": "x",
      "node_modules/a/node_modules/b/test/server.pem": "x",
      ".git/credentials": "x",
      "node_modules/pkg/.ssh/id_rsa": "x",
      "src/index.ts": "x",
    });
    const found = await scan();
    expect(found.files).toEqual([
      ".git/credentials",
      "node_modules/@scope/pkg/lib/deep/.npmrc",
      "node_modules/a/node_modules/b/test/server.pem",
      "node_modules/pkg/.env",
    ]);
    expect(found.directories).toEqual(["node_modules/pkg/.ssh"]);
  });

  it("shows git configs with credentials as a sanitized copy, wherever the repository is", async () => {
    const { scan } = workspace({
      ".git/config": TOKEN_CONFIG,
      ".git/modules/lib/config": TOKEN_CONFIG,
      ".git/worktrees/w/config.worktree": "[remote]\n\tx = https://t:WT-TOKEN@h/\n",
      "bare.git/config": TOKEN_CONFIG,
      "vendor/x/.git/config": TOKEN_CONFIG,
      "clean/.git/config": '[core]\n\trepositoryformatversion = 0\n[remote "o"]\n\turl = https://h/r\n',
      "app/config": "[database]\n\tpassword = APP-PASSWORD\n",
      ".git/refs/heads/config": `${"a".repeat(40)}\n`,
    });
    const found = await scan();
    expect(found.replaced).toEqual([
      ".git/config",
      ".git/modules/lib/config",
      ".git/worktrees/w/config.worktree",
      "bare.git/config",
      "vendor/x/.git/config",
    ]);
    for (const copy of Object.values(found.copies)) expect(copy).not.toMatch(/TOKEN/);
    expect(found.copies[".git/config"]).toContain('url = "https://h/r"');
  });

  it("a .git renamed by a command keeps its config covered (it is still a repository's config)", async () => {
    const { root, scan } = workspace({ "repo/.git/config": TOKEN_CONFIG, "repo/.git/HEAD": "ref: x\n" });
    expect((await scan()).replaced).toEqual(["repo/.git/config"]);
    renameSync(join(root, "repo/.git"), join(root, "repo/moved"));
    mkdirSync(join(root, "node_modules/a/b/c"), { recursive: true });
    renameSync(join(root, "repo"), join(root, "node_modules/a/b/c/repo"));
    expect((await scan()).replaced).toEqual(["node_modules/a/b/c/repo/moved/config"]);
  });

  it("what was covered by a path tail stays covered when a command renames a parent", async () => {
    const { root, scan } = workspace({
      ".config/gh/hosts.yml": "oauth_token: GH",
      ".config/pip/pip.conf": "index-url = https://u:PIP@h/",
      "other/pip.conf": "plain",
    });
    expect(await scan()).toMatchObject({ files: [".config/pip/pip.conf"], directories: [".config/gh"] });
    renameSync(join(root, ".config"), join(root, "cfg"));
    expect(await scan()).toMatchObject({ files: ["cfg/pip/pip.conf"], directories: ["cfg/gh"] });
  });

  it("does not follow symlinks, and covers the other names of a hard-linked secret", async () => {
    const outside = workspace({ ".env": "OUTSIDE", config: TOKEN_CONFIG });
    const { root, scan } = workspace({ ".env": "S", ".git/config": TOKEN_CONFIG });
    symlinkSync(outside.root, join(root, "link"));
    symlinkSync(join(outside.root, "config"), join(root, "sub-config"));
    linkSync(join(root, ".env"), join(root, "notes.txt"));
    linkSync(join(root, ".git/config"), join(root, "kept.txt"));
    const found = await scan();
    expect(found.files).toEqual([".env", "kept.txt", "notes.txt"]);
    expect(found.replaced).toEqual([".git/config"]);
  });

  it("walks names with odd characters, and refuses to leave a secret under a name it cannot pass to bwrap", async () => {
    const { root, scan } = workspace({ "new\nline/.npmrc": "x", "sp ace/'q\"/.env.local": "x" });
    const latin1 = Buffer.concat([Buffer.from(`${root}/caf`), Buffer.from([0xe9])]);
    mkdirSync(latin1);
    writeFileSync(Buffer.concat([latin1, Buffer.from("/plain.txt")]), "x");
    expect((await scan()).files).toEqual(["new\nline/.npmrc", "sp ace/'q\"/.env.local"]);
    writeFileSync(Buffer.concat([latin1, Buffer.from("/.env")]), "x");
    await expect(scan()).rejects.toThrow(/not valid UTF-8 .*rename it/);
  });

  it.each([
    [{ maxEntries: 5 }, /over 5 entries to scan/],
    [{ maxDepth: 3 }, /nested over 3 levels/],
    [{ maxHidden: 2 }, /3 secret-looking paths to cover, over the sandbox's limit of 2/],
  ])("fails closed past its bounds (%o)", async (limits, message) => {
    const { scan } = workspace({ "a/b/c/d/e/.env": "x", "a/.npmrc": "x", id_rsa: "x" }, limits);
    await expect(scan()).rejects.toThrow(message);
  });

  it("reuses settled listings and still sees what changed since", async () => {
    const later = () => BigInt(Date.now() + 10_000) * 1_000_000n;
    const { root, scan } = workspace({ "node_modules/pkg/lib/index.js": "x", "deep/.npmrc": "x" }, {}, later);
    expect((await scan()).files).toEqual(["deep/.npmrc"]);
    await sleep(30); // past the filesystem's timestamp granularity
    writeFileSync(join(root, "node_modules/pkg/lib/.env"), "x");
    renameSync(join(root, "deep"), join(root, "node_modules/pkg/lib/deep"));
    expect((await scan()).files).toEqual(["node_modules/pkg/lib/.env", "node_modules/pkg/lib/deep/.npmrc"]);
  });
});
