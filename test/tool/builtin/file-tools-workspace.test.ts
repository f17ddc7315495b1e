import { execFileSync } from "node:child_process";
import { linkSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { DEFAULT_CREDENTIAL_LISTS, decidePermission, ruleFromString } from "../../../src/permission/index.js";
import { findRipgrep } from "../../../src/tool/builtin/grep-search.js";
import { editTool, globTool, grepTool, readTool, writeTool } from "../../../src/tool/builtin/index.js";
import { WorkspaceFileView } from "../../../src/workspace/workspace-file-view.js";
import { run, tempDir, toolContext } from "./helpers.js";

// A workspace whose tree points at secrets outside it, the ways an attacker would arrange it.
const { dir: base, cleanup } = tempDir();
afterAll(cleanup);
const home = join(base, "home");
const root = join(base, "ws");
const KEY = "-----BEGIN OPENSSH PRIVATE KEY----- hunter2";
mkdirSync(join(home, ".ssh"), { recursive: true });
mkdirSync(join(home, "docs"), { recursive: true });
writeFileSync(join(home, ".ssh", "id_ed25519"), KEY);
writeFileSync(join(home, "secret.txt"), KEY);
writeFileSync(join(home, "docs", "readme.txt"), "outside readme");
mkdirSync(join(root, "src"), { recursive: true });
mkdirSync(join(root, ".ssh"));
mkdirSync(join(root, ".config", "gh"), { recursive: true });
writeFileSync(join(root, "src", "a.ts"), "export const PRIVATE = 1;\n");
writeFileSync(join(root, "secret.txt"), "in-root PRIVATE notes\n");
writeFileSync(join(root, ".env"), `TOKEN=${KEY}\n`);
writeFileSync(join(root, "server.pem"), KEY);
writeFileSync(join(root, ".ssh", "id_rsa"), KEY);
writeFileSync(join(root, ".config", "gh", "hosts.yml"), `oauth_token: ${KEY}\n`);
symlinkSync(join(home, ".ssh"), join(root, "keys")); // a directory link out
symlinkSync(join(home, ".ssh", "id_ed25519"), join(root, "notes.txt")); // a file link out
symlinkSync(join(home, "docs"), join(root, "docs")); // `docs/../secret.txt` climbs from the target
symlinkSync(join(root, "src", "a.ts"), join(root, "alias.ts")); // a link that stays inside
linkSync(join(home, "secret.txt"), join(root, "copy.txt")); // a hard link to a secret
execFileSync("mkfifo", [join(root, "pipe")]); // a FIFO: opening it for reading would block

const view = new WorkspaceFileView(root, DEFAULT_CREDENTIAL_LISTS);
const files = { files: view };
const ctx = () => toolContext(root);

describe("the file tools through a workspace's file view", () => {
  it("Read refuses symlinks out of the root, hard links, hidden paths and .. after a link", async () => {
    const read = readTool(files);
    const refused: [string, RegExp][] = [
      ["keys/id_ed25519", /outside the workspace|hidden/],
      ["keys/known_hosts", /outside the workspace|hidden/],
      ["notes.txt", /outside the workspace/],
      ["copy.txt", /hard links/],
      [".env", /hidden/],
      ["server.pem", /hidden/],
      [".ssh/id_rsa", /hidden/],
      [".config/gh/hosts.yml", /hidden/],
      ["docs/../secret.txt", /\.\. after the symlink/],
      [join(home, "secret.txt"), /outside the workspace/],
      ["~/.ssh/id_rsa", /outside the workspace/],
    ];
    for (const [path, why] of refused) {
      await expect(run(read, { path }, ctx()), path).rejects.toThrow(why);
    }
  });

  it("Read refuses a FIFO instead of hanging on it", async () => {
    await expect(run(readTool(files), { path: "pipe" }, ctx())).rejects.toThrow(/not a regular file/);
    await expect(run(writeTool(files), { path: "pipe", content: "x" }, ctx())).rejects.toThrow();
  });

  it("Read still reads ordinary files and links that stay inside", async () => {
    expect(String(await run(readTool(files), { path: "src/a.ts" }, ctx()))).toContain("PRIVATE = 1");
    expect(String(await run(readTool(files), { path: "alias.ts" }, ctx()))).toContain("PRIVATE = 1");
    expect(String(await run(readTool(files), { path: "secret.txt" }, ctx()))).toContain("in-root");
  });

  for (const useRipgrep of [true, false]) {
    const engine = useRipgrep ? "ripgrep" : "JavaScript";
    describe.skipIf(useRipgrep && !findRipgrep())(`Grep (${engine})`, () => {
      const grep = grepTool({ ...files, useRipgrep });

      it("a recursive search shows no secret behind a link, a hard link or a hidden name", async () => {
        for (const outputMode of ["files", "content", "count"] as const) {
          const output = String(await run(grep, { pattern: "PRIVATE", outputMode }, ctx()));
          expect(output, outputMode).not.toContain("hunter2");
          expect(output, outputMode).not.toMatch(/keys|notes\.txt|copy\.txt|\.env|\.ssh|\.pem|hosts\.yml/);
          expect(output, outputMode).toContain("src/a.ts");
        }
      });

      it("a glob cannot pull a hidden or linked file back in", async () => {
        for (const glob of ["**/*.txt", "*.pem", "**/id_*", "**/*.yml"]) {
          const output = String(
            await run(grep, { pattern: "OPENSSH|oauth|TOKEN", glob, outputMode: "content" }, ctx()),
          );
          expect(output, glob).toMatch(/^no matches/);
        }
      });

      it("searching a refused file directly fails", async () => {
        for (const path of ["notes.txt", "copy.txt", ".env", "keys"]) {
          await expect(run(grep, { pattern: "PRIVATE", path }, ctx()), path).rejects.toThrow();
        }
      });
    });
  }

  it("Glob lists no hidden path and nothing behind a link, and cannot reach out of the root", async () => {
    const output = String(await run(globTool(files), { pattern: "**/*" }, ctx())).split("\n");
    expect(output).toContain("src/a.ts");
    expect(output.filter((path) => /\.env|\.ssh|\.pem|\.config|keys\/|notes\.txt|docs/.test(path))).toEqual(
      [],
    );
    await expect(run(globTool(files), { pattern: "../**" }, ctx())).rejects.toThrow(/outside the workspace/);
    await expect(run(globTool(files), { pattern: "*", path: "keys" }, ctx())).rejects.toThrow(
      /outside the workspace/,
    );
  });

  it("Write and Edit refuse to write through a link, a hard link or a hidden name", async () => {
    const write = writeTool(files);
    for (const path of ["notes.txt", "keys/authorized_keys", "copy.txt", ".env", ".ssh/config"]) {
      await expect(run(write, { path, content: "owned" }, ctx()), path).rejects.toThrow();
    }
    expect(readFileSync(join(home, ".ssh", "id_ed25519"), "utf8")).toBe(KEY);
    expect(readFileSync(join(home, "secret.txt"), "utf8")).toBe(KEY);
    expect(readFileSync(join(root, ".env"), "utf8")).toContain("TOKEN=");
    const state = {};
    await run(readTool(files), { path: "secret.txt" }, toolContext(root, { state }));
    await expect(
      run(
        editTool(files),
        { path: "copy.txt", oldString: "hunter2", newString: "owned" },
        toolContext(root, { state }),
      ),
    ).rejects.toThrow(/hard links/);
    expect(readFileSync(join(home, "secret.txt"), "utf8")).toBe(KEY);
  });

  it("Write and Edit work on ordinary files inside", async () => {
    const state = {};
    const c = toolContext(root, { state });
    await run(writeTool(files), { path: "out/new.txt", content: "one two" }, c);
    await run(editTool(files), { path: "out/new.txt", oldString: "two", newString: "three" }, c);
    expect(readFileSync(join(root, "out", "new.txt"), "utf8")).toBe("one three");
  });
});

describe("without a workspace the host view does not follow links either", () => {
  it("the JavaScript Grep does not walk a symlinked directory out of the working directory", async () => {
    const output = String(
      await run(grepTool({ useRipgrep: false }), { pattern: "outside readme", outputMode: "files" }, ctx()),
    );
    expect(output).toBe("no matches for outside readme");
  });

  it("Read refuses a FIFO instead of hanging on it", async () => {
    await expect(run(readTool(), { path: "pipe" }, ctx())).rejects.toThrow(/not a regular file/);
  });

  it("a file the call names (the engine asked about it) is searched; a directory search skips it", async () => {
    for (const useRipgrep of findRipgrep() ? [true, false] : [false]) {
      const grep = grepTool({ useRipgrep });
      const named = String(await run(grep, { pattern: "TOKEN", path: ".env", outputMode: "count" }, ctx()));
      expect(named, String(useRipgrep)).toBe(".env:1");
      const all = String(await run(grep, { pattern: "TOKEN", outputMode: "files" }, ctx()));
      expect(all, String(useRipgrep)).not.toContain(".env");
    }
  });
});

describe("Glob rules match the call's pattern", () => {
  const decide = (rule: string, behavior: "allow" | "deny", input: unknown) =>
    decidePermission(globTool(), input, {
      mode: "default",
      rules: [ruleFromString(rule, behavior, "config")],
      workingDirectories: [root],
    });

  it("a deny rule catches a pattern that reaches into the denied folder", async () => {
    expect((await decide("Glob(src/**)", "deny", { pattern: "src/*.ts" })).behavior).toBe("deny");
    expect((await decide("Glob(**/*.pem)", "deny", { pattern: "keys/*.pem" })).behavior).toBe("deny");
    expect((await decide("Glob(src/**)", "deny", { pattern: "*.md" })).behavior).not.toBe("deny");
  });

  it("an allow rule must cover where the pattern reaches", async () => {
    const outside = { path: "src", pattern: "../../**/*.ts" };
    expect((await decide("Glob(src/**)", "allow", outside)).behavior).toBe("ask");
    expect((await decide("Glob(/**)", "allow", outside)).behavior).toBe("allow");
  });
});
