import { execFileSync } from "node:child_process";
import {
  appendFileSync,
  existsSync,
  linkSync,
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

/** Markers whose appearance in a tool's output means a secret was read. */
export const MARKERS = {
  env: "ENV-FILE-MARKER-35",
  key: "PRIVATE-KEY-MARKER-35",
  outside: "OUTSIDE-FILE-MARKER-35",
  variable: "ENV-VARIABLE-MARKER-35",
} as const;

/** The environment variable holding `MARKERS.variable` (set for the test process, so for its children). */
export const SECRET_VARIABLE = "WALL_REGRESSION_SECRET";

const gitEnv = {
  ...process.env,
  GIT_CONFIG_NOSYSTEM: "1",
  GIT_AUTHOR_NAME: "a",
  GIT_AUTHOR_EMAIL: "a@example.com",
  GIT_COMMITTER_NAME: "a",
  GIT_COMMITTER_EMAIL: "a@example.com",
};

export function git(cwd: string, ...args: string[]): void {
  execFileSync("git", args, { cwd, env: gitEnv, stdio: "pipe" });
}

/**
 * The attacker's tree: `work` (the working directory: a git repository with a `.env`, a symlink into
 * a home's `.ssh`, a directory of ordinary files that looks like a git directory, a hard link to a
 * file outside), `home` (with `.ssh/id_rsa`) and `outside.txt` beside it. Canaries are files a hostile
 * command would create under `root`: each test names its own and asserts it is absent.
 */
export interface WallTree {
  root: string;
  work: string;
  home: string;
  canary(name: string): string;
  cleanup(): void;
}

export function wallTree(): WallTree {
  const root = realpathSync(mkdtempSync(join(tmpdir(), "wall-35-")));
  const work = join(root, "work");
  const home = join(root, "home");
  mkdirSync(join(home, ".ssh"), { recursive: true });
  writeFileSync(join(home, ".ssh", "id_rsa"), `${MARKERS.key}\n`);
  mkdirSync(join(work, "src"), { recursive: true });
  git(work, "init", "-q", "-b", "main");
  writeFileSync(join(work, "a.txt"), "a\n");
  writeFileSync(join(work, "src", "x.ts"), "export const x = 1;\n");
  git(work, "add", "a.txt", "src/x.ts");
  git(work, "commit", "-qm", "init");
  writeFileSync(join(work, ".env"), `TOKEN=${MARKERS.env}\n`);
  mkdirSync(join(work, "link-tree"));
  symlinkSync(join(home, ".ssh"), join(work, "link-tree", "keys"));
  symlinkSync(".env", join(work, "env-link"));
  writeFileSync(join(root, "outside.txt"), `${MARKERS.outside}\n`);
  linkSync(join(root, "outside.txt"), join(work, "hard.txt"));
  // A directory of ordinary files that looks like a (bare) git directory.
  mkdirSync(join(work, "evil", "objects"), { recursive: true });
  mkdirSync(join(work, "evil", "refs"));
  writeFileSync(join(work, "evil", "HEAD"), "ref: refs/heads/main\n");
  writeFileSync(join(work, "evil", "config"), `[core]\n\tfsmonitor = touch ${join(root, "CANARY-evil")}\n`);
  return {
    root,
    work,
    home,
    canary: (name) => join(root, `CANARY-${name}`),
    cleanup: () => rmSync(root, { recursive: true, force: true }),
  };
}

/**
 * A repository whose embedded repository `sub` (a gitlink in the index, as a tarball of a project
 * with its submodules checked out holds it) has a `.git/config` naming `core.fsmonitor`: git runs it
 * for `git status` and `git diff` in the outer repository.
 */
export function repositoryWithHostileSubmodule(root: string, canary: string): string {
  const dir = join(root, "with-submodule");
  mkdirSync(join(dir, "sub"), { recursive: true });
  git(dir, "init", "-q", "-b", "main");
  writeFileSync(join(dir, "a.txt"), "a\n");
  git(join(dir, "sub"), "init", "-q", "-b", "main");
  writeFileSync(join(dir, "sub", "s.txt"), "s\n");
  git(join(dir, "sub"), "add", "s.txt");
  git(join(dir, "sub"), "commit", "-qm", "s");
  git(dir, "add", "a.txt", "sub");
  git(dir, "commit", "-qm", "init");
  appendFileSync(join(dir, "sub", ".git", "config"), `[core]\n\tfsmonitor = touch ${canary}\n`);
  return dir;
}

/**
 * A repository whose `.git/commondir` names a directory of ordinary files in the working tree; its
 * `config` (where git then reads the repository's config) names `core.fsmonitor`.
 */
export function repositoryWithHostileCommondir(root: string, canary: string): string {
  const dir = join(root, "with-commondir");
  mkdirSync(dir, { recursive: true });
  git(dir, "init", "-q", "-b", "main");
  writeFileSync(join(dir, "a.txt"), "a\n");
  git(dir, "add", "a.txt");
  git(dir, "commit", "-qm", "init");
  const common = join(dir, "vendor", "common");
  mkdirSync(common, { recursive: true });
  execFileSync("cp", ["-r", join(dir, ".git", "objects"), join(dir, ".git", "refs"), common]);
  writeFileSync(join(common, "HEAD"), readFileSync(join(dir, ".git", "HEAD")));
  writeFileSync(
    join(common, "config"),
    `[core]\n\trepositoryformatversion = 0\n\tbare = false\n\tfsmonitor = touch ${canary}\n`,
  );
  writeFileSync(join(dir, ".git", "commondir"), "../vendor/common\n");
  return dir;
}

export { existsSync };
