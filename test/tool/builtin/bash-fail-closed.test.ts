// biome-ignore-all lint/suspicious/noTemplateCurlyInString: shell text, not templates
import { execFileSync } from "node:child_process";
import { linkSync, mkdirSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { analyzeBash } from "../../../src/tool/builtin/index.js";
import { bashSuggestions, decideBash, expectInEveryMode } from "./bash-modes.js";
import { tempDir } from "./helpers.js";

/**
 * "A command counts as read-only only when every word, option, operand and redirection is
 * understood": each class the analysis cannot model asks, and for deny rules counts as a match.
 * Every case here was allowed (or slipped past a deny rule) before the analysis failed closed.
 */
const { dir: root, cleanup } = tempDir();
afterAll(cleanup);

/** The working directory: a repository with a secret, clean and hostile trees beside it. */
const dir = join(root, "work");
mkdirSync(join(dir, "src", "deep"), { recursive: true });
mkdirSync(join(dir, ".git"));
writeFileSync(join(dir, ".git", "config"), "[core]\n");
writeFileSync(join(dir, ".env"), "TOKEN=secret\n");
writeFileSync(join(dir, "a.txt"), "a\n");
writeFileSync(join(dir, "src", "b.ts"), "b\n");
writeFileSync(join(dir, "src", "deep", "c.ts"), "c\n");
// A tree holding a secret, one with a symlink into a home's .ssh, one whitelisting hidden names.
mkdirSync(join(dir, "with-env"));
writeFileSync(join(dir, "with-env", ".env.local"), "TOKEN=secret\n");
const home = join(root, "home");
mkdirSync(join(home, ".ssh"), { recursive: true });
writeFileSync(join(home, ".ssh", "id_ed25519"), "PRIVATE KEY\n");
mkdirSync(join(dir, "with-link"));
symlinkSync(join(home, ".ssh"), join(dir, "with-link", "keys"));
mkdirSync(join(dir, "whitelisting"));
writeFileSync(join(dir, "whitelisting", ".ignore"), "!.env\n");
writeFileSync(join(dir, "whitelisting", "x.txt"), "x\n");
// A directory of ordinary files that looks like a (bare) git repository.
mkdirSync(join(dir, "evil", "objects"), { recursive: true });
mkdirSync(join(dir, "evil", "refs"));
writeFileSync(join(dir, "evil", "HEAD"), "ref: refs/heads/main\n");
writeFileSync(join(dir, "evil", "config"), "[core]\n\tfsmonitor = touch /tmp/pwned\n");
// A tree too big to check (more entries than a walk or a glob expansion checks).
mkdirSync(join(dir, "big"));
for (let index = 0; index < 5_050; index++) writeFileSync(join(dir, "big", `f${index}.txt`), "");
// A repository whose .gitignore names big trees plainly: ripgrep never enters them.
const repo = join(root, "repo");
mkdirSync(join(repo, ".git"), { recursive: true });
mkdirSync(join(repo, "src"));
writeFileSync(join(repo, "src", "a.ts"), "a\n");
writeFileSync(join(repo, ".gitignore"), "node_modules/\n/dist\n*.log\n");
writeFileSync(join(repo, ".env"), "TOKEN=secret\n");
for (const ignored of ["node_modules", "dist"]) {
  mkdirSync(join(repo, ignored));
  for (let index = 0; index < 5_050; index++) writeFileSync(join(repo, ignored, `f${index}.js`), "");
}
// A working directory that is no repository (git would look above it).
const plain = join(root, "plain");
mkdirSync(plain);
writeFileSync(join(plain, "a.txt"), "a\n");

describe("operands bash evaluates run the code hidden in them", () => {
  it.each([
    "test -v 'a[$(touch /tmp/pwn; id)]'",
    "[ -v 'a[$(id)]' ]",
    "[[ -v 'a[$(id)]' ]]",
    "test x -eq 'a[$(id)]'",
    "[ 1 -lt 'a[$(id)]' ]",
    "[[ 'a[$(id)]' -eq 1 ]]",
    "printf -v 'a[$(id)]' x",
    "read 'a[$(id)]'",
    "declare 'a[$(id)]=1'",
    "let 'a[$(id)]'",
    "mapfile 'a[$(id)]'",
    "echo $(( a['$(id)'] ))",
    "a['$(id)']=1",
    "x='a[$(id)]'; echo $((x))",
    "x='b[$(id)]'; echo ${!x}",
    "x='b[$(id)]'; echo ${a[x]}",
    "x='b[$(id)]'; echo ${a[$x]}",
    "x='b[$(id)]'; y=(1 2); echo ${y[@]:x}",
    "x='b[$(id)]'; echo $[x]",
    "x='b[$(id)]'; declare -n r=$x; echo $r",
  ])("%j is a safety ask, and Bash(id:*) denies it", async (command) => {
    await expectInEveryMode(dir, command, "safety");
    await expectInEveryMode(dir, command, "deny", ["deny:Bash(id:*)"]);
  });

  it("plain tests stay read-only", async () => {
    for (const command of [
      "test -f a.txt",
      "[ -d src ]",
      "[[ -f a.txt ]]",
      "test 1 -eq 1",
      "test -v HOME",
      "echo $HOME",
    ])
      await expectInEveryMode(dir, command, "allow");
  });
});

describe("what the parser cannot read counts as a match for every deny rule", () => {
  it.each([
    ['ls "unterminated; rm a.txt', "Bash(rm:*)"],
    [`ls ${"x".repeat(100_001)}`, "Bash(curl:*)"],
    ["[[ -v 'a[$(rm a.txt)]' ]]", "Bash(rm:*)"],
    ["echo $(( a['$(rm a.txt)'] ))", "Bash(rm:*)"],
  ])("%j with %s", async (command, rule) => {
    await expectInEveryMode(dir, command, "deny", [`deny:${rule}`]);
  });

  it("nesting past the depth limit is hidden, not unmatched", async () => {
    const nested = 'bash -c \'bash -c "bash -c \\\\"bash -c \\\\\\\\\\\\"bash -c ls\\\\\\\\\\\\"\\\\""\'';
    expect(analyzeBash(nested).commands.some((command) => command.opaque)).toBe(true);
    await expectInEveryMode(dir, nested, "deny", ["deny:Bash(curl:*)"]);
  });
});

describe("git options that pick another repository or config ask", () => {
  it.each([
    ["git --git-dir=evil status", "ask"],
    ["git --git-dir evil status", "ask"],
    ["git --work-tree=. status", "ask"],
    ["git -C evil status", "ask"],
    ["git --bare status", "ask"],
    ["git --namespace=x log", "ask"],
    ["git -c core.fsmonitor=id status", "safety"],
    ["git --exec-path=/tmp status", "safety"],
    ["git --exec-p=/tmp status", "safety"],
    ["git --config-env=core.pager=X log", "safety"],
    ["git log --outp=/tmp/x", "safety"],
    ["git grep --open-files=id x", "safety"],
    ["GIT_DIR=evil git status", "safety"],
  ] as const)("%j → %s", async (command, expectation) => {
    await expectInEveryMode(dir, command, expectation);
  });

  it("a directory that looks like a repository is a safety ask, even after cd", async () => {
    await expectInEveryMode(dir, "cd evil && git status", "safety");
    await expectInEveryMode(dir, "cd evil && git log", "safety", ["allow:Bash(git log:*)"]);
  });

  it("a working directory without .git asks: git would use a repository above it", async () => {
    await expectInEveryMode(plain, "git status", "ask");
    await expectInEveryMode(plain, "ls -la", "allow");
  });

  it("a .git file pointing outside a .git directory is a safety ask", async () => {
    const worktree = join(root, "worktree");
    mkdirSync(worktree);
    writeFileSync(join(worktree, ".git"), `gitdir: ${join(dir, "evil")}\n`);
    await expectInEveryMode(worktree, "git status", "safety");
  });

  it.each([
    "[core]\n\tfsmonitor = touch /tmp/pwned\n",
    '[diff "x"]\n\ttextconv = id\n',
    '[filter "lfs"]\n\tclean = id\n',
    "[gpg]\n\tprogram = id\n",
    "[core]\n\thooksPath = hooks\n",
    "[include]\n\tpath = other.cfg\n",
    "[pager]\n\tlog = id\n",
    "[alias]\n\tst = !id\n",
    "[core] pager = id\n",
  ])("a repository whose .git/config names a program (%j) is a safety ask", async (config) => {
    const repository = join(root, `configured-${Math.random().toString(36).slice(2)}`);
    mkdirSync(join(repository, ".git"), { recursive: true });
    writeFileSync(join(repository, ".git", "config"), config);
    for (const command of ["git status", "git log --oneline -5", "git diff"])
      await expectInEveryMode(repository, command, "safety");
  });

  it("a repository with a hook, or a plain config, is judged accordingly", async () => {
    const hooked = join(root, "hooked");
    mkdirSync(join(hooked, ".git", "hooks"), { recursive: true });
    writeFileSync(join(hooked, ".git", "hooks", "post-index-change"), "#!/bin/sh\nid\n");
    await expectInEveryMode(hooked, "git status", "safety");
    const clean = join(root, "clean-repository");
    mkdirSync(join(clean, ".git", "hooks"), { recursive: true });
    writeFileSync(join(clean, ".git", "hooks", "pre-commit.sample"), "#!/bin/sh\n");
    writeFileSync(
      join(clean, ".git", "config"),
      '[core]\n\trepositoryformatversion = 0\n\tfsmonitor = false\n[remote "origin"]\n\turl = x\n[alias]\n\tst = status\n',
    );
    await expectInEveryMode(clean, "git status", "allow");
  });

  it("a repository that tracks a secret: commands that print tracked contents ask", async () => {
    const tracked = join(root, "tracks-secret");
    mkdirSync(tracked);
    writeFileSync(join(tracked, "a.txt"), "a\n");
    writeFileSync(join(tracked, ".env.production"), "TOKEN=secret\n");
    const git = (...args: string[]) =>
      execFileSync("git", ["-c", "user.name=t", "-c", "user.email=t@t", ...args], {
        cwd: tracked,
        stdio: "ignore",
      });
    git("init", "-q");
    git("add", "a.txt", ".env.production");
    git("commit", "-qm", "x");
    for (const command of [
      "git diff HEAD",
      "git show HEAD",
      "git log -p",
      "git grep TOKEN",
      "git blame a.txt",
    ])
      await expectInEveryMode(tracked, command, "safety");
    for (const command of ["git status", "git log --oneline -5", "git ls-files", "git branch -a"])
      await expectInEveryMode(tracked, command, "allow");
    // Untracked, it is not in the index: plain git diff stays allowed.
    git("rm", "-q", "--cached", ".env.production");
    await expectInEveryMode(tracked, "git diff", "allow");
  });

  it("printing config or remote URLs reads .git/config (tokens in URLs)", async () => {
    await expectInEveryMode(dir, "git config --list", "safety");
    await expectInEveryMode(dir, "git remote -v", "safety");
  });
});

describe("recursive and symlink-following readers are checked against what they reach", () => {
  it.each([
    ["grep -r TOKEN with-env", "safety"],
    ["grep -rn TOKEN .", "safety"],
    ["grep -r TOKEN", "safety"],
    ["grep --recursive TOKEN with-env", "safety"],
    ["egrep -f a.txt -R -e alpha", "safety"],
    ["rg --hidden TOKEN", "safety"],
    ["rg -uu TOKEN with-env", "safety"],
    ["rg -g '*' TOKEN with-env", "safety"],
    ["diff -r with-env src", "safety"],
    ["git grep TOKEN with-env", "safety"],
    ["cd with-env && grep -r TOKEN", "safety"],
    // The symlink points outside the working directory (into a home's .ssh): reading it asks.
    ["grep -R KEY with-link", "safety"],
    ["rg -L KEY with-link", "safety"],
    ["diff -r with-link src", "safety"],
    // An ignore file that whitelists hidden names makes ripgrep's default walk unprovable.
    ["rg TOKEN whitelisting", "ask"],
    ["rg TOKEN", "ask"],
    // Too many entries to check: ask, never a partial check.
    ["grep -r x big", "ask"],
  ] as const)("%j → %s", async (command, expectation) => {
    await expectInEveryMode(dir, command, expectation);
  });

  it("readers that do not follow links, or skip hidden names, stay allowed", async () => {
    for (const command of [
      "grep -r KEY with-link",
      "rg KEY with-link",
      "rg TOKEN src",
      "rg foo src",
      "ls -R",
    ])
      await expectInEveryMode(dir, command, "allow");
  });

  it("ripgrep's default walk skips hidden names and directories its ignore files name plainly", async () => {
    await expectInEveryMode(repo, "rg TOKEN", "allow");
    await expectInEveryMode(repo, "rg -n foo src", "allow");
    // Without the ignore files the same tree is too big, and with --hidden .env is reached.
    await expectInEveryMode(repo, "rg --no-ignore TOKEN", "safety");
    await expectInEveryMode(repo, "grep -r TOKEN src", "allow");
  });

  it("a glob matching more files than are checked asks", async () => {
    await expectInEveryMode(dir, "cat big/*", "ask");
    await expectInEveryMode(dir, "cat src/*", "allow");
  });
});

describe("writes through descriptors are not read-only", () => {
  it.each(["echo hi > /dev/fd/3", "echo x >&3", "cat a.txt 1>&5", "exec 3>out.txt"])(
    "%j is denied in explore mode",
    async (command) => {
      expect((await decideBash(dir, command, "explore")).behavior).toBe("deny");
      expect(analyzeBash(command).readOnly).toBe(false);
    },
  );

  it("the terminal's own descriptors stay read-only", async () => {
    for (const command of ["cat a.txt 2>&1", "cat a.txt >&2", "ls > /dev/null 2>&1", "echo x > /dev/fd/2"])
      await expectInEveryMode(dir, command, "allow");
  });
});

describe("programs that print the environment or run programs through their scripts", () => {
  it.each([
    "jq -n env",
    "jq -n '$ENV'",
    "jq -n '\"\\(env.HOME)\"'",
    "jq --arg a b 'env' a.txt",
    "awk 'BEGIN{print ENVIRON[\"HOME\"]}'",
    "awk '{system(\"id\")}' a.txt",
    "awk '{print | \"sh\"}' a.txt",
    "awk '{print > \"/tmp/x\"}' a.txt",
    "awk 'BEGIN{ARGV[1]=\"/etc/shadow\"; ARGC=2} {print}' a.txt",
    "awk -f prog.awk a.txt",
    'awk \'BEGIN{f="system"; @f("touch pwned")}\'',
    'awk \'BEGIN{e="ENV" "IRON"; print SYMTAB[e]["HOME"]}\'',
    'awk \'function g(f) { @f("id") } BEGIN { g("system") }\'',
    "sed 'e id' a.txt",
    "sed 's/a/id/e' a.txt",
    "sed -n '1w /tmp/x' a.txt",
    "sed 's/a/b/w /tmp/x' a.txt",
    "sed '1W out' a.txt",
    "sed '1r /etc/shadow' a.txt",
    "sed 'R /etc/shadow' a.txt",
    "sed -f script.sed a.txt",
    "sed -i '1e id' a.txt",
    "sed 'k' a.txt",
    "tar --to-command=sh -xf a.tar",
    "tar --to-com=sh -xf a.tar",
    "tar -xI sh -f a.tar",
    "tar --checkpoint-action=exec=id -xf a.tar",
    "sort --compress-program=sh a.txt",
    "sort --compress-p=sh a.txt",
    "rsync -e 'sh -c id' a b",
    "rsync --rsync-p=id a b",
    "rg --pre=sh x",
    "rg --pr=sh x",
  ])("%j is a safety ask no allow rule silences", async (command) => {
    const program = command.split(" ")[0];
    await expectInEveryMode(dir, command, "safety", [`allow:Bash(${program}:*)`]);
  });

  it.each([
    "sed -n 1,20p a.txt",
    "sed 's/a/b/g' a.txt",
    "sed -n '/x/{p;q}' a.txt",
    "sed '1!G;h;$!d' a.txt",
    "sed -E 's|a|b|; /^#/d' a.txt",
    "sed -n '1w /dev/stdout' a.txt",
    "jq .name a.txt",
    "jq -r '.env' a.txt",
    "awk '{print $1}' a.txt",
    "awk -F: '{print $2}' a.txt",
  ])("%j stays read-only", async (command) => {
    await expectInEveryMode(dir, command, "allow");
  });

  it("program-running options are deny-rule matches for every deny rule", async () => {
    await expectInEveryMode(dir, "sed 'e rm a.txt' a.txt", "deny", ["deny:Bash(rm:*)"]);
    await expectInEveryMode(dir, "tar --to-command='rm a.txt' -xf a.tar", "deny", ["deny:Bash(rm:*)"]);
    await expectInEveryMode(dir, "awk '{system(\"rm a.txt\")}' a.txt", "deny", ["deny:Bash(rm:*)"]);
  });
});

describe("names and links that change what a command reads or writes", () => {
  const odd = join(root, "odd");
  mkdirSync(odd);
  writeFileSync(join(odd, "a.txt"), "a\n");
  writeFileSync(join(odd, "b.txt"), "b\n");
  writeFileSync(join(odd, "-opwned.txt"), "");
  const secrets = join(root, "outside");
  mkdirSync(join(secrets, "keys"), { recursive: true });
  writeFileSync(join(secrets, "secret.txt"), "secret\n");
  symlinkSync(join(secrets, "keys"), join(odd, "keys-link"));
  writeFileSync(join(dir, "names0"), `${join(dir, ".env")}\0`);

  it.each([
    // A glob that matches a name starting with - hands the program an option (sort -opwned.txt).
    ["sort *.txt", "ask"],
    ["cat *.txt", "ask"],
    // `keys-link/..` is the directory above the link's target, outside the working directory.
    ["cat keys-link/../secret.txt", "ask"],
    // A glob anywhere but a path becomes words of its own: an option's value, a script, a name.
    ["awk --assign=-1 -F * '^'", "ask"],
    ["test -v *", "safety"],
    ["grep -e * a.txt", "ask"],
    ["find . -name *.txt", "ask"],
    ["grep x keys-link/../secret.txt", "ask"],
  ] as const)("%j → %s", async (command, expectation) => {
    await expectInEveryMode(odd, command, expectation);
  });

  it("a hard link may be a file outside under another name: reading it asks", async () => {
    const linkedDir = join(root, "linked");
    mkdirSync(linkedDir);
    writeFileSync(join(secrets, "linked-secret.txt"), "secret\n");
    linkSync(join(secrets, "linked-secret.txt"), join(linkedDir, "notes.md"));
    writeFileSync(join(linkedDir, "plain.md"), "plain\n");
    await expectInEveryMode(linkedDir, "cat notes.md", "ask");
    await expectInEveryMode(linkedDir, "grep -r secret .", "ask");
    await expectInEveryMode(linkedDir, "cat plain.md", "allow");
  });

  it.each([
    // Another user's home, $PWD and $OLDPWD through tilde expansion are not known paths.
    ["grep -r . ~root/.config", "ask"],
    ["cat ~root/.bashrc", "ask"],
    ["cat ~+/a.txt", "ask"],
    // git grep over a revision searches a tree from history, which no walk of the disk sees.
    ["git grep TOKEN HEAD~1", "ask"],
    ["git grep -e TOKEN HEAD", "ask"],
  ] as const)("%j → %s", async (command, expectation) => {
    await expectInEveryMode(dir, command, expectation);
  });

  it.each([
    // uniq's second operand is its output, and ?.txt expands to two.
    ["uniq -d ?.txt", "ask"],
    // Files named inside a file are read without being named on the command line.
    ["sort --files0-from=names0", "ask"],
    ["wc --files0-from=names0", "ask"],
    ["file -f names0", "ask"],
    // A directory as the magic file: file reads every file in it and prints their lines in warnings.
    ["file --magic-file . a.txt", "ask"],
    ["file -m . a.txt", "ask"],
    ["diff -r --from-file=with-env src", "safety"],
    ["jq -n -f filter.jq", "safety"],
    ["time jq -n -f filter.jq", "safety"],
  ] as const)("%j → %s", async (command, expectation) => {
    await expectInEveryMode(dir, command, expectation);
  });
});

describe("quoting the word reader must not lose", () => {
  it.each([
    // $"..." is a (locale) double-quoted string: its text is the path.
    ['cat $".env"', "safety"],
    ['cat .e$"nv"', "safety"],
    // Quotes and escapes inside braces are not modelled: the braces are not expanded, so it asks.
    ["cat {'.env',x}", "ask"],
    ["cat {\\.env,a.txt}", "ask"],
    ["cat {'keys-link/../secret.txt',a.txt}", "ask"],
  ] as const)("%j → %s", async (command, expectation) => {
    await expectInEveryMode(dir, command, expectation);
  });

  it("git log --show-signature runs gpg", async () => {
    await expectInEveryMode(dir, "git --no-optional-locks log --show-signature", "ask");
  });
});

describe("paths hidden in option bundles and leading options", () => {
  it.each([
    ["grep -5f/etc/passwd x a.txt", "ask"],
    ["find -L /etc -name passwd", "ask"],
    ["find -H /etc -name passwd", "ask"],
    ["find . -files0-from /etc/passwd", "ask"],
    ["find . -newer /etc/passwd", "ask"],
    ["find . -fls /tmp/x", "ask"],
    ["find . -unknown-predicate", "ask"],
    ["/usr/bin/time -o out.txt ls", "ask"],
  ] as const)("%j → %s", async (command, expectation) => {
    await expectInEveryMode(dir, command, expectation);
  });
});

describe("a wrapper form the unwrapping does not know counts as a deny-rule match", () => {
  it.each([
    "flock /tmp/lock -c 'rm a.txt'",
    "flock -x /tmp/lock rm a.txt",
    "su -c 'rm a.txt' root",
    "runuser -u root rm a.txt",
    "script -qc 'rm a.txt' /dev/null",
    "chrt 10 rm a.txt",
    "chrt -f 10 rm a.txt",
    "ionice -c 3 rm a.txt",
    "taskset 0x1 rm a.txt",
    "taskset -c 0 rm a.txt",
    "setsid -f rm a.txt",
    "stdbuf -o0 rm a.txt",
    "sudo -s rm a.txt",
    "sudo -E -u root rm a.txt",
    "doas -u root rm a.txt",
    "npx -c 'rm a.txt'",
    "unbuffer rm a.txt",
    "watch -x rm a.txt",
    "timeout --foreground 5 rm a.txt",
    "timeout --weird 5 rm a.txt",
    "nice --weird rm a.txt",
    "command -x rm a.txt",
    "strace -f rm a.txt",
    "ltrace rm a.txt",
    "gosu root rm a.txt",
    "parallel rm ::: a.txt",
    "ssh host rm a.txt",
    "unshare -r rm a.txt",
    "nsenter -t 1 rm a.txt",
    "firejail rm a.txt",
    "systemd-run rm a.txt",
    "fakeroot rm a.txt",
    "valgrind rm a.txt",
    "echo a.txt | xargs -I{} sh -c 'rm {}'",
    "echo rm | xargs -I{} {} a.txt",
    "echo rm | xargs -I X X a.txt",
    "echo rm | xargs --replace=P P a.txt",
    "echo a.txt | xargs env rm",
    "find . -name rm -exec {} a.txt \\;",
    "find . -exec sh -c 'rm {}' \\;",
    "npm exec rm a.txt",
    "uv run rm a.txt",
    "docker exec box rm a.txt",
    "git submodule foreach 'rm a.txt'",
    "env -S 'rm \"a.txt\"'",
  ])("Bash(rm:*) denies %j", async (command) => {
    await expectInEveryMode(dir, command, "deny", ["deny:Bash(rm:*)"]);
  });
});

describe("suggested rules are as narrow as the call", () => {
  it.each([
    ["python -m pytest", ["Bash(python -m pytest:*)"]],
    ["python3 -u tests/run.py -x", ["Bash(python3 -u tests/run.py:*)"]],
    ["node scripts/build.js --prod", ["Bash(node scripts/build.js:*)"]],
    ["npm run build", ["Bash(npm run build:*)"]],
    ["npm test", ["Bash(npm test:*)"]],
    ["strace -f ls", ["Bash(strace -f ls:*)"]],
  ])("%j suggests %j", (command, rules) => {
    expect(bashSuggestions(command)).toEqual(rules);
  });

  it("a suggested Bash(sed:*) never allows a sed that writes, reads or runs", async () => {
    expect(bashSuggestions("sed -i 's/a/b/' a.txt")).toEqual(["Bash(sed:*)"]);
    const rule = ["allow:Bash(sed:*)"];
    expect((await decideBash(dir, "sed -i 's/a/b/' a.txt", "default", rule)).behavior).toBe("allow");
    for (const command of ["sed 'e id' a.txt", "sed 's/x/y/w /tmp/o' a.txt", "sed '1r /etc/shadow' a.txt"])
      expect(await decideBash(dir, command, "default", rule)).toMatchObject({
        behavior: "ask",
        safety: true,
      });
  });
});

describe("git that prints files from history asks unless pathspecs limit it to files", () => {
  // A repository whose history holds a secret deleted since, and a tag of that secret's blob.
  const historic = join(root, "historic");
  mkdirSync(join(historic, "docs"), { recursive: true });
  writeFileSync(join(historic, "a.txt"), "a\n");
  writeFileSync(join(historic, "docs", "d.md"), "d\n");
  writeFileSync(join(historic, ".env.production"), "TOKEN=secret\n");
  const git = (...args: string[]) =>
    execFileSync("git", ["-c", "user.name=t", "-c", "user.email=t@t", ...args], {
      cwd: historic,
      encoding: "utf8",
    }).trim();
  git("init", "-q");
  git("add", "-A");
  git("commit", "-qm", "first");
  const blob = git("rev-parse", "HEAD:.env.production");
  git("tag", "secret-blob", blob);
  git("rm", "-q", ".env.production");
  git("commit", "-qm", "second");
  git("rm", "-q", "--cached", "a.txt");
  git("add", "a.txt");

  it.each([
    "git show HEAD",
    "git show",
    "git log -p",
    "git log -u",
    "git log -S TOKEN",
    "git log -G TOKEN",
    "git log --word-diff",
    "git whatchanged -p",
    "git reflog show -p",
    "git diff HEAD~1",
    "git diff --cached HEAD~1",
    "git diff HEAD~1 HEAD",
    "git diff HEAD~1..HEAD",
    "git status -v",
    "git show secret-blob",
    "git show -s secret-blob",
    "git show --stat secret-blob",
    `git show ${blob}`,
    `git cat-file -p ${blob}`,
    "git cat-file blob secret-blob",
    "git diff HEAD~1 -- docs",
    "git diff HEAD~1 -- .",
    "git log -p -- docs",
    "git log -p -- gone.txt",
    "git log -p --follow -- a.txt",
    "git log -p --full-diff -- a.txt",
    "git log -p -- '*.txt'",
    "git log -p -- ':(glob)*'",
    "git --icase-pathspecs log -p -- a.txt",
    "git log -L1,2:a.txt",
    "cd docs && git log -p",
  ])("%j asks", async (command) => {
    await expectInEveryMode(historic, command, "ask");
  });

  it.each([
    "git status",
    "git diff",
    "git log --oneline -5",
    "git log --stat",
    "git log --name-status --format=%H",
    "git whatchanged -1",
    "git reflog",
    "git show --stat HEAD",
    "git show -s --format=%s HEAD~1",
    "git show HEAD -- a.txt",
    "git show HEAD~1 -- a.txt docs/d.md",
    "git show HEAD:a.txt",
    "git show HEAD~1:docs/d.md",
    "git cat-file -p HEAD",
    "git cat-file -t secret-blob",
    "git log -p -- a.txt",
    "git log -p a.txt",
    "git diff HEAD~1 -- a.txt",
    "git diff HEAD~1 a.txt",
    "git diff --stat HEAD~1",
    "git diff --name-only HEAD~1..HEAD",
    "git diff -- docs",
    "git status -v -- a.txt",
    "cd docs && git log -p -- d.md",
  ])("%j stays allowed", async (command) => {
    await expectInEveryMode(historic, command, "allow");
  });

  it("a rev:path of a dangerous file is still a safety ask, and the index's secret still is", async () => {
    await expectInEveryMode(historic, "git show HEAD~1:.env.production", "safety");
    await expectInEveryMode(historic, "git log -p -- .env.production", "safety");
    writeFileSync(join(historic, ".env.local"), "TOKEN=secret\n");
    git("add", "-f", ".env.local");
    await expectInEveryMode(historic, "git show HEAD", "safety");
    git("rm", "-q", "--cached", ".env.local");
  });
});

describe("files that run code or hold credentials are dangerous", () => {
  it.each([
    "cat ~/.config/git/config",
    "cat .config/git/config",
    "cat .zshenv",
    "cat .zprofile",
    "cat .config/fish/config.fish",
    "cat .kshrc",
    "cat .tcshrc",
    "cat .cshrc",
    "cat .inputrc",
    "cat .husky/pre-commit",
    "cat .pre-commit-config.yaml",
    "cat lefthook.yml",
    "cat .hg/hgrc",
    "cat .svn/entries",
    "cat .npmrc",
    "cat .pypirc",
    "cat .cargo/credentials.toml",
    "cat .cargo/config.toml",
    "cat .docker/config.json",
    "cat .kube/config",
    "cat .config/gh/hosts.yml",
    "cat .aws/credentials",
    "cat .config/gcloud/credentials.db",
    "cat .azure/accessTokens.json",
    "cat .netrc",
    "cat .pgpass",
    "cat .git-credentials",
    "cat .gnupg/secring.gpg",
    "cat .ssh/id_rsa",
    "cat .bash_history",
    "cat .zsh_history",
    "cat .env.production",
  ])("%j is a safety ask", async (command) => {
    await expectInEveryMode(dir, command, "safety");
  });
});

/**
 * The controls: legitimate read-only commands (docs/permissions.md) that must stay allowed in every
 * mode, so failing closed never turns the everyday commands into questions.
 */
describe("the controls stay allowed", () => {
  it.each([
    "ls -la",
    "ls",
    "cat a.txt",
    "cat src/b.ts",
    "grep -n foo src/b.ts",
    "grep -rn foo src",
    "git status",
    "git log --oneline -5",
    "git diff",
    "git diff HEAD~1 -- src/b.ts",
    "git diff --stat HEAD~1",
    "git show --stat HEAD",
    "git show HEAD -- a.txt",
    "git show HEAD:a.txt",
    "git log -p -- a.txt",
    "git branch -a",
    "rg foo src",
    "rg -n --glob '*.ts' foo src",
    "find . -name '*.ts'",
    "find src -type f",
    "wc -l a.txt",
    "head -20 a.txt",
    "tail -n 5 a.txt",
    "sed -n 1,20p a.txt",
    "jq .name a.txt",
    "sort a.txt",
    "uniq -c a.txt",
    "test -f a.txt",
    "[ -d src ]",
    "diff a.txt src/b.ts",
    "stat a.txt",
    "du -sh src",
    "tree src",
    "pwd",
    "echo hello",
    "cd src && ls",
    "cd src && git status",
    "git grep -n foo src",
    "git grep foo -- src",
    "cat a.txt | wc -l",
    "awk '{print $1}' a.txt",
  ])("%j", async (command) => {
    await expectInEveryMode(dir, command, "allow");
  });
});
