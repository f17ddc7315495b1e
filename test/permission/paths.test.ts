import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { homedir, tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  assessPath,
  dangerousPathReason,
  decidePermission,
  matchPathRule,
  type PermissionMode,
  realWorkingDirectories,
} from "../../src/permission/index.js";
import { context, fileSubject } from "./fixtures.js";

let root: string;
let project: string;
let outside: string;
let linkedProject: string;

beforeAll(() => {
  root = realpathSync(mkdtempSync(join(tmpdir(), "agentscope-paths-")));
  project = join(root, "project");
  outside = join(root, "outside");
  mkdirSync(join(project, "src"), { recursive: true });
  mkdirSync(outside);
  writeFileSync(join(project, "src", "a.ts"), "a");
  writeFileSync(join(outside, "secret.txt"), "s");
  writeFileSync(join(outside, "id_rsa"), "k");
  symlinkSync(outside, join(project, "escape"));
  symlinkSync(join(outside, "id_rsa"), join(project, "notes.txt"));
  mkdirSync(join(outside, ".ssh"));
  symlinkSync(join(outside, ".ssh"), join(project, "keys"));
  linkedProject = join(root, "linked-project");
  symlinkSync(project, linkedProject);
});

afterAll(() => rmSync(root, { recursive: true, force: true }));

describe("working directories and path resolution", () => {
  it("resolves working directories to real paths", () => {
    expect(realWorkingDirectories(context("default", [], [linkedProject]))).toEqual([project]);
  });

  it.each([
    ["src/a.ts", true],
    ["./src/../src/a.ts", true],
    ["new-dir/new-file.ts", true],
    ["../outside/secret.txt", false],
    ["src/../../outside/secret.txt", false],
    ["escape/secret.txt", false],
    ["/etc/hosts", false],
    ["~/anything", false],
  ])("%s is inside the working directory: %s", (path, inside) => {
    expect(assessPath(path, context("default", [], [linkedProject])).inside).toBe(inside);
  });

  it("expands ~ to the home directory", () => {
    expect(assessPath("~/x.txt", context("default", [], [project])).absolute).toBe(join(homedir(), "x.txt"));
  });

  it("an absolute path inside the working directory is inside", () => {
    expect(assessPath(join(project, "src", "a.ts"), context("default", [], [project])).inside).toBe(true);
  });

  it.each([
    [".env", true],
    [".env.production", true],
    ["config/.envrc", true],
    [".git/config", true],
    [".git", true],
    [".ssh/id_rsa", true],
    [".bashrc", true],
    [".zshrc", true],
    [".profile", true],
    [".npmrc", true],
    [".netrc", true],
    [".gitconfig", true],
    [".aws/credentials", true],
    ["src/environment.ts", false],
    ["src/env", false],
    ["docs/git-guide.md", false],
  ])("%s is dangerous: %s", (path, dangerous) => {
    expect(dangerousPathReason(join(project, path)) !== undefined).toBe(dangerous);
  });

  it("a symlink to a dangerous place is dangerous", () => {
    const ctx = context("default", [], [project]);
    expect(assessPath("keys/known_hosts", ctx).danger).toMatch(/\.ssh/);
    expect(assessPath("notes.txt", ctx).inside).toBe(false);
  });
});

describe("the engine's path policy for file tools", () => {
  const read = fileSubject("Read", true);
  const write = fileSubject("Write", false);
  const decide = (tool: typeof read, path: string, mode: PermissionMode, rules: string[] = []) =>
    decidePermission(tool, { path }, context(mode, rules, [project]));

  it("allows reading inside the working directories in every mode", async () => {
    for (const mode of ["default", "accept_edits", "explore", "bypass", "dont_ask"] as const) {
      expect((await decide(read, "src/a.ts", mode)).behavior).toBe("allow");
    }
  });

  it("asks to read outside the working directories, through .. or a symlink", async () => {
    for (const path of ["../outside/secret.txt", "escape/secret.txt", join(outside, "secret.txt")]) {
      const decision = await decide(read, path, "default");
      expect(decision).toMatchObject({ behavior: "ask" });
      expect(decision.reason).toMatch(/outside the working directories/);
      expect(decision.safety).toBeUndefined();
    }
  });

  it("reading a dangerous path is a safety ask that allow rules cannot silence", async () => {
    const decision = await decide(read, ".env", "default", ["allow:Read"]);
    expect(decision).toMatchObject({ behavior: "ask", safety: true });
    expect(decision.reason).toMatch(/\.env/);
    expect((await decide(read, ".env", "dont_ask")).behavior).toBe("deny");
    expect((await decide(read, ".env", "explore")).behavior).toBe("deny");
    expect((await decide(read, ".env", "bypass")).behavior).toBe("allow");
  });

  it("writing a dangerous path is a safety ask even in accept_edits", async () => {
    expect(await decide(write, ".git/hooks/pre-commit", "accept_edits")).toMatchObject({
      behavior: "ask",
      safety: true,
    });
  });

  it("accept_edits allows edits inside the working directories only", async () => {
    expect((await decide(write, "src/new.ts", "accept_edits")).behavior).toBe("allow");
    expect((await decide(write, "escape/new.ts", "accept_edits")).behavior).toBe("ask");
    expect((await decide(write, "src/new.ts", "default")).behavior).toBe("ask");
  });

  it("an allow rule grants reads outside the working directories", async () => {
    const rule = `allow:Read(${outside}/**)`;
    expect((await decide(read, join(outside, "secret.txt"), "default", [rule])).behavior).toBe("allow");
  });
});

describe("path rules", () => {
  const ctx = (behavior: "allow" | "deny") => ({ behavior, context: context("default", [], [project]) });

  it("matches relative globs against the working directories", () => {
    expect(matchPathRule("src/**", "src/a.ts", ctx("allow"))).toBe(true);
    expect(matchPathRule("src/**", join(project, "src", "a.ts"), ctx("allow"))).toBe(true);
    expect(matchPathRule("src/**", "./lib/../src/x/y.ts", ctx("allow"))).toBe(true);
    expect(matchPathRule("src/**", "lib/a.ts", ctx("allow"))).toBe(false);
    expect(matchPathRule("**/*.ts", "src/a.ts", ctx("allow"))).toBe(true);
  });

  it("matches absolute and ~ globs against absolute paths", () => {
    expect(matchPathRule(`${outside}/**`, join(outside, "secret.txt"), ctx("allow"))).toBe(true);
    expect(matchPathRule("~/**", join(homedir(), "x"), ctx("allow"))).toBe(true);
    expect(matchPathRule("/nowhere/**", join(outside, "secret.txt"), ctx("allow"))).toBe(false);
  });

  it("an allow rule judges the real path; a deny rule matches either", () => {
    expect(matchPathRule("escape/**", "escape/secret.txt", ctx("allow"))).toBe(false);
    expect(matchPathRule("escape/**", "escape/secret.txt", ctx("deny"))).toBe(true);
    expect(matchPathRule(`${outside}/**`, "escape/secret.txt", ctx("deny"))).toBe(true);
  });

  it("a relative deny pattern matches anywhere, a relative allow pattern only in the working directories", () => {
    const elsewhere = join(outside, "nested", "prod.env");
    expect(matchPathRule("*.env", elsewhere, ctx("deny"))).toBe(true);
    expect(matchPathRule("**/*.env", elsewhere, ctx("deny"))).toBe(true);
    expect(matchPathRule("nested/*.env", elsewhere, ctx("deny"))).toBe(true);
    expect(matchPathRule("*.env", elsewhere, ctx("allow"))).toBe(false);
    expect(matchPathRule("*.env", join(outside, "nested", "prod.txt"), ctx("deny"))).toBe(false);
  });
});
