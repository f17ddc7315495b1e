import { execFileSync } from "node:child_process";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { sanitizeGitConfig, withoutUrlCredentials } from "../../src/workspace/git-config-sanitizer.js";
import { tempDir } from "./helpers.js";

const { dir, cleanup } = tempDir("git-config-sanitizer-");
afterAll(cleanup);

/** What git itself reads from a config text (`git config --list`, one `key=value` a line). */
function gitReads(text: string): string[] {
  const file = join(dir, "config");
  writeFileSync(file, text);
  return execFileSync("git", ["config", "--file", file, "--list"], { encoding: "utf8" })
    .split("\n")
    .filter(Boolean);
}

const REPOSITORY = `[core]
\trepositoryformatversion = 0
\tfilemode = true
\tbare = false
[remote "origin"]
\turl = https://x-access-token:ghp_TOKEN1@github.com/org/repo.git
\tpushurl = https://ghp_TOKEN2@github.com/org/repo.git
\tfetch = +refs/heads/*:refs/remotes/origin/*
\tproxy = http://user:PROXYPASS@proxy:3128
[remote "mirror"]
\turl = ssh://git:SSHPASS@example.com/repo.git
[branch "main"]
\tremote = origin
\tmerge = refs/heads/main
[url "https://oauth2:TOKEN3@gitlab.com/"]
\tinsteadOf = https://gitlab.com/
[credential]
\thelper = store --file .git/credentials
[credential "https://github.com"]
\tusername = me
[http]
\textraheader = AUTHORIZATION: basic SECRETHEADER
[http "https://example.com/"]
\textraHeader = Authorization: Bearer TOKEN4
[include]
\tpath = ../secrets.inc
[includeIf "gitdir:~/work/"]
\tpath = ~/.work-secrets
[sendemail]
\tsmtppass = SMTPPASS
[github]
\ttoken = GHTOKEN
[user]
\tname = A "quoted" Name
\temail = a@example.com
\tpassword = USERPASS
[lfs]
\turl = https://u:LFSPASS@lfs.example.com/
[submodule "lib"]
\turl = https://u:SUBPASS@example.com/lib.git
\tactive = true
`;

describe("a git config without its credentials", () => {
  const clean = sanitizeGitConfig(REPOSITORY);
  const read = gitReads(clean.text);

  it("git reads the copy, and no secret of the original is in it", () => {
    for (const secret of [
      "ghp_TOKEN1",
      "ghp_TOKEN2",
      "PROXYPASS",
      "SSHPASS",
      "TOKEN3",
      "SECRETHEADER",
      "TOKEN4",
      "secrets.inc",
      "work-secrets",
      "SMTPPASS",
      "GHTOKEN",
      "USERPASS",
      "LFSPASS",
      "SUBPASS",
      "x-access-token",
    ])
      expect(clean.text).not.toContain(secret);
    expect(clean.changed).toBe(true);
    expect(clean.repository).toBe(true);
  });

  it("keeps what git needs: remotes, branches, insteadOf rewrites, user, submodules", () => {
    expect(read).toEqual([
      "core.repositoryformatversion=0",
      "core.filemode=true",
      "core.bare=false",
      "remote.origin.url=https://github.com/org/repo.git",
      "remote.origin.pushurl=https://github.com/org/repo.git",
      "remote.origin.fetch=+refs/heads/*:refs/remotes/origin/*",
      "remote.mirror.url=ssh://git@example.com/repo.git",
      "branch.main.remote=origin",
      "branch.main.merge=refs/heads/main",
      "url.https://gitlab.com/.insteadof=https://gitlab.com/",
      "user.name=A quoted Name", // unescaped quotes only toggle quoting, for git too
      "user.email=a@example.com",
      "lfs.url=https://lfs.example.com/",
      "submodule.lib.url=https://example.com/lib.git",
      "submodule.lib.active=true",
    ]);
  });

  it("a config without secrets is unchanged, and git reads it the same", () => {
    const plain = `[core]\n\trepositoryformatversion = 0\n[remote "origin"]\n\turl = git@github.com:org/repo.git\n`;
    const result = sanitizeGitConfig(plain);
    expect(result.changed).toBe(false);
    expect(gitReads(result.text)).toEqual(gitReads(plain));
  });

  it("decodes values as git does: quotes, escapes, comments, continuations, the old section form", () => {
    const tricky = [
      "\uFEFF[Core] repositoryFormatVersion = 0 ; a comment",
      '[remote "o\\"r"]',
      '\turl = "https://u:SPLIT\\',
      'TOKEN@h/r" # comment',
      '\tfetch = "  spaced  value  "',
      "[branch.Main]",
      "\tremote = o",
      "[core]",
      "\tbare",
      "",
    ].join("\n");
    const result = sanitizeGitConfig(tricky);
    expect(result.text).not.toContain("SPLIT");
    expect(result.text).not.toContain("TOKEN");
    expect(gitReads(result.text)).toEqual([
      "core.repositoryformatversion=0",
      'remote.o"r.url=https://h/r',
      'remote.o"r.fetch=  spaced  value  ',
      "branch.main.remote=o",
      "core.bare",
    ]);
  });

  it("drops what does not parse, so nothing unread reaches the copy", () => {
    const result = sanitizeGitConfig('token = LOOSE\n[core\n\tx = 1\n[user]\n\tname = "unterminated\n');
    expect(result.changed).toBe(true);
    expect(result.text).toBe("");
  });

  it.each([
    ["https://user:pass@host/r", "https://host/r"],
    ["https://TOKEN@host/r", "https://host/r"],
    ["https://u:p@ss@host/r", "https://host/r"],
    ["ssh://git@host/r", "ssh://git@host/r"],
    ["ssh://git:pw@host/r", "ssh://git@host/r"],
    ["git+ssh://:pw@host/r", "git+ssh://host/r"],
    ["git@github.com:org/r.git", "git@github.com:org/r.git"],
  ])("withoutUrlCredentials(%s) is %s", (url, expected) => {
    expect(withoutUrlCredentials(url)).toBe(expected);
  });
});
