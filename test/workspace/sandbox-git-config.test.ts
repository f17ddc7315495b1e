import { execFileSync } from "node:child_process";
import { linkSync, mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { reportMissingService } from "../support/services.js";
import { bubblewrapMissing, runIn, sandbox, tempDir } from "./helpers.js";

const missing = await bubblewrapMissing();

/**
 * A repository cloned with a token keeps it in .git/config; git inside the sandbox must still work,
 * but no command there may print the token, however it reaches the file.
 */
describe("git inside the sandbox sees its config without credentials", () => {
  if (missing) return reportMissingService(missing);
  const { dir: root, cleanup } = tempDir("sandbox-git-");
  afterAll(cleanup);
  const git = (...args: string[]) =>
    execFileSync("git", ["-c", "user.name=t", "-c", "user.email=t@t", ...args], {
      cwd: root,
      encoding: "utf8",
    });
  git("init", "-q", "-b", "main");
  git("remote", "add", "origin", "https://x-access-token:GIT-TOKEN@example.com/org/repo.git");
  git(
    "config",
    "url.https://oauth2:REWRITE-TOKEN@gitlab.example.com/.insteadOf",
    "https://gitlab.example.com/",
  );
  git("config", "credential.helper", "store --file=.git/credentials");
  git("config", "http.extraHeader", "Authorization: Bearer HEADER-TOKEN");
  writeFileSync(join(root, ".git", "credentials"), "https://u:STORED-TOKEN@example.com\n");
  writeFileSync(join(root, "README.md"), "hello\n");
  git("add", "README.md");
  git("commit", "-q", "-m", "first");
  const original = readFileSync(join(root, ".git", "config"), "utf8");
  const runner = sandbox(root);
  const tokens = /GIT-TOKEN|REWRITE-TOKEN|STORED-TOKEN|HEADER-TOKEN|x-access-token|oauth2/;

  it("cat, grep and git config print no token", async () => {
    const output = await runIn(
      runner,
      "cat .git/config .git/credentials; grep -r TOKEN .git; git config --list --show-origin",
    );
    expect(output).not.toMatch(tokens);
    expect(output).toContain("remote.origin.url=https://example.com/org/repo.git");
    expect(output).toContain("url.https://gitlab.example.com/.insteadof=https://gitlab.example.com/");
  });

  it("git still works: status, log, remote, insteadOf, a commit", async () => {
    const output = await runIn(
      runner,
      "git status --short && git log --format=%s && git remote -v && git ls-remote --get-url https://gitlab.example.com/x && " +
        "git -c user.name=s -c user.email=s@s commit -q --allow-empty -m second && git log --format=%s | head -1",
    );
    expect(output).toBe(
      "first\n" +
        "origin\thttps://example.com/org/repo.git (fetch)\norigin\thttps://example.com/org/repo.git (push)\n" +
        "https://gitlab.example.com/x\nsecond\n",
    );
  });

  it("the copy is read-only: a write to it fails and the real config is unchanged", async () => {
    const output = await runIn(runner, "git config user.name changed; echo '[x]' >> .git/config");
    expect(output).toMatch(/could not (?:lock|write)|Read-only file system|Device or resource busy/);
    expect(readFileSync(join(root, ".git", "config"), "utf8")).toBe(original);
  });

  it("renaming .git, moving it into node_modules or hard-linking the config does not expose it", async () => {
    await runIn(
      runner,
      "mkdir -p node_modules/pkg/lib && mv .git node_modules/pkg/lib/stolen; ln .git/config x 2>/dev/null; true",
    );
    const output = await runIn(
      runner,
      "cat node_modules/pkg/lib/stolen/config node_modules/pkg/lib/stolen/credentials",
    );
    expect(output).not.toMatch(tokens);
    renameSync(join(root, "node_modules/pkg/lib/stolen"), join(root, ".git"));
    linkSync(join(root, ".git", "config"), join(root, "config-link.txt"));
    expect(await runIn(runner, "cat config-link.txt")).not.toMatch(tokens);
  });

  it("covers names with odd characters", async () => {
    mkdirSync(join(root, "new\nline"));
    writeFileSync(join(root, "new\nline", ".npmrc"), "//r/:_authToken=NPM-TOKEN\n");
    expect(await runIn(runner, "cat new*/.npmrc")).not.toContain("NPM-TOKEN");
  });
});
