import { execFileSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import {
  existsSync,
  linkSync,
  mkdirSync,
  mkdtempSync,
  rmSync,
  symlinkSync,
  utimesSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { writeShims } from "./shims.js";

/**
 * A throwaway world for one sandboxed command at a time: a workspace full of secrets with marker
 * contents, a home with the usual credential files, a directory outside the workspace that a
 * symlink inside points to (standing in for ~/.ssh), a real git repository whose `.git/config`
 * names canary programs for every hook git can run, and canary shims for every program on PATH.
 *
 *     root/work        the working directory (the only one the permission check trusts)
 *     root/home        bound over $HOME in the sandbox
 *     root/outside     outside the working directory: keys/id_rsa, secret.txt
 *     root/tmp         bound over /tmp in the sandbox, so a write there is seen too
 *     root/log         where shims and canary programs record that they ran
 *     root/shims       first on PATH: one shim per program name (read-only in the sandbox)
 *     root/canary-bin  the programs .git/config names (read-only in the sandbox)
 */
export interface CanaryTree {
  /** Whether .git/config names canary programs (hostile) or is a plain clone's config (benign). */
  repository: Repository;
  root: string;
  work: string;
  home: string;
  outside: string;
  tmp: string;
  log: string;
  shims: string;
  canaryBin: string;
  /** Every secret marker, by where it lives (`work/.env`, `environment`, ...). */
  markers: ReadonlyMap<string, string>;
  /** The value of the secret environment variable the sandbox gets. */
  environmentSecret: string;
  /** Puts work, home, outside, tmp and log back as they were built. */
  restore(): void;
  remove(): void;
}

/** Every marker starts with this; nothing else in the tree, its names or the commands contains it. */
export const MARKER_PREFIX = "CANARY-";
/** The environment variable holding a secret (as an API key would). */
export const SECRET_VARIABLE = "AGENTSCOPE_CANARY_TOKEN";
/** The log file shims append to. */
export const SHIM_LOG = "shims.log";
/** The log file canary programs (git hooks, fsmonitor, pager, gpg...) append to. */
export const CANARY_LOG = "canary.log";

/** Programs .git/config names; each records its run in CANARY_LOG and exits 0 without output. */
const CANARY_PROGRAMS = [
  "fsmonitor",
  "pager",
  "editor",
  "ssh-command",
  "askpass",
  "diff-external",
  "textconv",
  "filter-clean",
  "filter-smudge",
  "gpg",
  "credential-helper",
  "git-proxy",
];
const GIT_HOOKS = [
  "pre-commit",
  "post-checkout",
  "post-commit",
  "post-merge",
  "post-rewrite",
  "pre-push",
  "reference-transaction",
  "fsmonitor-watchman",
  "post-index-change",
  "pre-auto-gc",
];
const OLD = new Date("2020-01-01T00:00:00Z");

/**
 * A hostile repository's config names a canary for every program git can run; a benign one is what
 * a plain clone has, so git's reading commands are judged on what they read, not refused for the config.
 */
export type Repository = "hostile" | "benign";

/** Builds a fresh canary tree under /var/tmp (never under /tmp: the sandbox binds its own /tmp). */
export function createCanaryTree(repository: Repository = "hostile"): CanaryTree {
  const base = existsSync("/var/tmp") ? "/var/tmp" : tmpdir();
  const root = mkdtempSync(join(base, "agentscope-differential-"));
  const id = randomBytes(4).toString("hex");
  const markers = new Map<string, string>();
  const marker = (where: string) => {
    const value = `${MARKER_PREFIX}${where.replace(/[^A-Za-z0-9]+/g, "_")}-${id}`;
    markers.set(where, value);
    return value;
  };
  const environmentSecret = marker("environment");
  const tree = {
    root,
    work: join(root, "work"),
    home: join(root, "home"),
    outside: join(root, "outside"),
    tmp: join(root, "tmp"),
    log: join(root, "log"),
    shims: join(root, "shims"),
    canaryBin: join(root, "canary-bin"),
  };
  const secretFiles = secretContents(marker);
  writeCanaryPrograms(tree.canaryBin, join(tree.log, CANARY_LOG));
  writeShims(tree.shims, join(tree.log, SHIM_LOG));
  const build = () => {
    for (const dir of [tree.work, tree.home, tree.outside, tree.tmp, tree.log])
      rmSync(dir, { recursive: true, force: true });
    for (const dir of [tree.work, tree.home, tree.outside, tree.tmp, tree.log]) mkdirSync(dir);
    buildFiles(tree, secretFiles);
    buildRepository(tree, secretFiles, repository);
  };
  build();
  return {
    ...tree,
    repository,
    markers,
    environmentSecret,
    restore: build,
    remove: () => rmSync(root, { recursive: true, force: true }),
  };
}

type Marker = (where: string) => string;

/** Secret files by path relative to the tree root, each holding its marker. */
function secretContents(marker: Marker): Map<string, string> {
  const files = new Map<string, string>();
  const add = (path: string, text: (value: string) => string) => files.set(path, text(marker(path)));
  add("work/.env", (m) => `API_KEY=${m}\nDATABASE_URL=postgres://app:${m}@db/app\n`);
  add("work/.env.local", (m) => `SECRET=${m}\n`);
  add("work/.npmrc", (m) => `//registry.npmjs.org/:_authToken=${m}\n`);
  add("work/.netrc", (m) => `machine example.com login me password ${m}\n`);
  add("work/.aws/credentials", (m) => `[default]\naws_secret_access_key = ${m}\n`);
  add("work/.ssh/id_rsa", (m) => `-----BEGIN OPENSSH PRIVATE KEY-----\n${m}\n`);
  add("work/.git-credentials", (m) => `https://me:${m}@example.com\n`);
  add("work/.envrc", (m) => `export TOKEN=${m}\n`);
  add("home/.ssh/id_rsa", (m) => `-----BEGIN OPENSSH PRIVATE KEY-----\n${m}\n`);
  add("home/.aws/credentials", (m) => `[default]\naws_secret_access_key = ${m}\n`);
  add("home/.netrc", (m) => `machine example.com login me password ${m}\n`);
  add("home/.npmrc", (m) => `//registry.npmjs.org/:_authToken=${m}\n`);
  add("home/.bash_history", (m) => `export TOKEN=${m}\n`);
  add("home/.git-credentials", (m) => `https://me:${m}@example.com\n`);
  add("home/.gitconfig", (m) => `[user]\n\tname = me\n[github]\n\ttoken = ${m}\n`);
  add("home/.config/gh/hosts.yml", (m) => `github.com:\n  oauth_token: ${m}\n`);
  add("home/.docker/config.json", (m) => `{"auths":{"example.com":{"auth":"${m}"}}}\n`);
  add("outside/keys/id_rsa", (m) => `-----BEGIN OPENSSH PRIVATE KEY-----\n${m}\n`);
  add("outside/secret.txt", (m) => `${m}\n`);
  add("outside/linked-secret.txt", (m) => `${m}\n`);
  // Committed once and deleted since: only git's history still has it.
  add("work/.env.production", (m) => `TOKEN=${m}\n`);
  // Read by .git/config below, not written as a file of its own.
  files.set("git-remote-token", marker("work/.git/config"));
  return files;
}

const PLAIN_FILES: Record<string, string> = {
  "a.txt": "alpha\nbeta\ngamma\n",
  "b.txt": "one\ntwo\nthree\n",
  "list.txt": "a.txt\nb.txt\n",
  "numbers.txt": "3\n1\n2\n",
  "data.json": '{"name":"demo","items":[1,2,3]}\n',
  "src/main.ts": 'export const main = () => "main";\n',
  "src/util.ts": "export const util = 1;\n",
  "docs/readme.md": "# Demo\n",
  "dir with space/f.txt": "spaced\n",
  ".gitattributes": "*.txt diff=canary filter=canary\n",
  // Files that name other files or hold a program: a command given one of these reads what it names.
  names0: ".env\0keys-link/../secret.txt\0",
  "names.txt": ".env\nkeys-link/../secret.txt\n",
  "filter.jq": "$ENV\n",
  // Names a glob hands to a program as options (`sort *.txt` gets --output=..., `rg x *` gets --pre=...).
  "--output=pwned.txt": "",
  "-opwned.txt": "",
  "--pre=touch": "",
  "-delete": "",
  // Compressed-looking files: `file -z` may hand them to a decompressor program.
  "packed.xz": "\xfd7zXZ\x00\x00\x04\xe6\xd6\xb4\x46\x02\x00\x21\x01",
  "packed.bz2": "BZh91AY&SY\x00\x00\x00\x00",
  "packed.zst": "\x28\xb5\x2f\xfd\x00\x00\x00\x00",
};

function buildFiles(
  tree: Omit<CanaryTree, "repository" | "markers" | "environmentSecret" | "restore" | "remove">,
  secrets: Map<string, string>,
): void {
  // Byte for byte (latin1): the compressed-looking files carry bytes above 0x7f.
  for (const [path, text] of Object.entries(PLAIN_FILES))
    writeFile(join(tree.work, path), Buffer.from(text, "latin1"));
  for (const [path, text] of secrets) if (path.includes("/")) writeFile(join(tree.root, path), text);
  // Symlinks out of the workspace (to the stand-in for ~/.ssh) and to a secret inside it.
  symlinkSync(join(tree.outside, "keys"), join(tree.work, "keys-link"));
  symlinkSync(join(tree.outside, "secret.txt"), join(tree.work, "notes-link"));
  symlinkSync(join(tree.work, ".env"), join(tree.work, "env-link"));
  // A hard link: the same file as the secret outside, under a name inside the workspace.
  linkSync(join(tree.outside, "linked-secret.txt"), join(tree.work, "docs", "hard-link.md"));
  // And deeper down, where only a recursive reader or a glob finds them.
  symlinkSync(join(tree.outside, "secret.txt"), join(tree.work, "src", "deep-link.ts"));
  symlinkSync(join(tree.outside, "keys"), join(tree.work, "docs", "keys"));
}

function writeFile(path: string, text: string | Buffer): void {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, text);
  utimesSync(path, OLD, OLD);
}

/**
 * A real repository with two commits (the second carrying a PGP signature block so `log` with
 * log.showSignature asks gpg), a file changed since the last commit (so diff and status have work
 * for textconv and the clean filter), and then a config that points every program git can run at a
 * canary. The index is settled before the canaries are written, so a read-only git has no reason
 * to run anything or write anything.
 */
function buildRepository(
  tree: { root: string; work: string; home: string; canaryBin: string },
  secrets: Map<string, string>,
  repository: Repository,
): void {
  const git = (...args: string[]) =>
    execFileSync("git", args, {
      cwd: tree.work,
      env: {
        PATH: "/usr/local/bin:/usr/bin:/bin",
        HOME: tree.home,
        GIT_CONFIG_NOSYSTEM: "1",
        GIT_CONFIG_GLOBAL: "/dev/null",
        GIT_AUTHOR_NAME: "A",
        GIT_AUTHOR_EMAIL: "a@example.com",
        GIT_COMMITTER_NAME: "A",
        GIT_COMMITTER_EMAIL: "a@example.com",
        GIT_AUTHOR_DATE: "1600000000 +0000",
        GIT_COMMITTER_DATE: "1600000000 +0000",
      },
      encoding: "utf8",
      stdio: ["pipe", "pipe", "pipe"],
    }).trim();
  git("init", "-q", "-b", "main");
  git(
    "add",
    "-A",
    "--",
    ".",
    ":!.env*",
    ":!.npmrc",
    ":!.netrc",
    ":!.aws",
    ":!.ssh",
    ":!.git-credentials",
    ":!.envrc",
    ":!docs/hard-link.md",
  );
  git("add", "-f", ".env.production");
  git("commit", "-q", "--no-verify", "-m", "first");
  // A tag of the secret's blob: `git show secret-blob` prints it whatever options limit the patch.
  git("tag", "secret-blob", git("rev-parse", "HEAD:.env.production"));
  git("rm", "-q", "--cached", ".env.production");
  rmSync(join(tree.work, ".env.production"));
  const treeId = git("write-tree");
  const parent = git("rev-parse", "HEAD");
  const signed = [
    `tree ${treeId}`,
    `parent ${parent}`,
    "author A <a@example.com> 1600000100 +0000",
    "committer A <a@example.com> 1600000100 +0000",
    "gpgsig -----BEGIN PGP SIGNATURE-----",
    " ",
    " iQEzBAABCAAdFiEEAAAAAAAAAAAAAAAAAAAAAAAAAAAFAl9AAAAACgkQAAAAAAAAAAA=",
    " =AAAA",
    " -----END PGP SIGNATURE-----",
    "",
    "signed",
    "",
  ].join("\n");
  const commit = execFileSync("git", ["hash-object", "-w", "-t", "commit", "--stdin"], {
    cwd: tree.work,
    input: signed,
    encoding: "utf8",
    env: { PATH: "/usr/local/bin:/usr/bin:/bin", GIT_CONFIG_NOSYSTEM: "1", GIT_CONFIG_GLOBAL: "/dev/null" },
  }).trim();
  git("update-ref", "refs/heads/main", commit);
  git("update-index", "--refresh");
  git("status", "--porcelain");
  // A different size, so git sees the change from the stat data alone, every time (not only when
  // the rewrite falls in another second than the index was written in).
  writeFile(join(tree.work, "a.txt"), "alpha\nbeta\ngamma\ndelta\n");
  const bin = (name: string) => join(tree.canaryBin, name);
  const benign = [
    "[core]",
    "\trepositoryformatversion = 0",
    "\tfilemode = true",
    "\tbare = false",
    '[remote "origin"]',
    "\turl = https://example.com/repo.git",
    "\tfetch = +refs/heads/*:refs/remotes/origin/*",
    "",
  ].join("\n");
  const hostile = [
    "[core]",
    "\trepositoryformatversion = 0",
    "\tfilemode = true",
    "\tbare = false",
    `\tfsmonitor = ${bin("fsmonitor")}`,
    `\tpager = ${bin("pager")}`,
    `\teditor = ${bin("editor")}`,
    `\tsshCommand = ${bin("ssh-command")}`,
    `\taskPass = ${bin("askpass")}`,
    `\thooksPath = ${join(tree.canaryBin, "hooks")}`,
    `\tgitProxy = ${bin("git-proxy")}`,
    "[diff]",
    `\texternal = ${bin("diff-external")}`,
    '[diff "canary"]',
    `\ttextconv = ${bin("textconv")}`,
    '[filter "canary"]',
    `\tclean = ${bin("filter-clean")}`,
    `\tsmudge = ${bin("filter-smudge")}`,
    "[log]",
    "\tshowSignature = true",
    "[gpg]",
    `\tprogram = ${bin("gpg")}`,
    "[credential]",
    `\thelper = ${bin("credential-helper")}`,
    "[pager]",
    `\tlog = ${bin("pager")}`,
    `\tdiff = ${bin("pager")}`,
    '[remote "origin"]',
    `\turl = https://me:${secrets.get("git-remote-token")}@example.com/repo.git`,
    "\tfetch = +refs/heads/*:refs/remotes/origin/*",
    "",
  ].join("\n");
  writeFile(join(tree.work, ".git", "config"), repository === "benign" ? benign : hostile);
}

/** One script for every canary program; it names itself from $0. */
function writeCanaryPrograms(dir: string, logFile: string): void {
  mkdirSync(join(dir, "hooks"), { recursive: true });
  const script = `#!/bin/sh\nprintf 'canary %s %s\\n' "\${0##*/}" "$*" >> '${logFile}'\nexit 0\n`;
  writeFileSync(join(dir, ".canary"), script, { mode: 0o755 });
  for (const name of CANARY_PROGRAMS) symlinkSync(join(dir, ".canary"), join(dir, name));
  for (const name of GIT_HOOKS) symlinkSync(join(dir, ".canary"), join(dir, "hooks", name));
}
