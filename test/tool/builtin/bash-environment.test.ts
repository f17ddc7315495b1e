import { execFileSync } from "node:child_process";
import { mkdirSync, readFileSync, statSync, utimesSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import {
  BASH_COMMAND_ENVIRONMENT,
  bashTool,
  localProcessRunner,
  withCommandEnvironment,
} from "../../../src/tool/builtin/index.js";
import type { ProcessRequest, ProcessRunner } from "../../../src/tool/index.js";
import { BubblewrapRunner } from "../../../src/workspace/index.js";
import { run, tempDir, toolContext } from "./helpers.js";

const { dir, cleanup } = tempDir();
afterAll(cleanup);
/** Why no bubblewrap sandbox starts here, or undefined when one does. */
const sandbox = await new BubblewrapRunner(dir, { maxProcesses: null }).ready().then(
  () => undefined,
  (error: Error) => error.message,
);

describe("the environment every Bash command runs in", () => {
  it("the Bash tool sends BASH_COMMAND_ENVIRONMENT to whatever runner it is given", async () => {
    const requests: ProcessRequest[] = [];
    const runner: ProcessRunner = {
      kind: "recording",
      async *run(request) {
        requests.push(request);
        yield "ok";
      },
    };
    await run(bashTool({ runner }), { command: "git status" }, toolContext(dir));
    expect(requests[0]?.env).toEqual(BASH_COMMAND_ENVIRONMENT);
    expect(BASH_COMMAND_ENVIRONMENT.GIT_OPTIONAL_LOCKS).toBe("0");
  });

  it("on the host, commands see it on top of the configured environment", async () => {
    const output = await run(
      bashTool({ env: { PATH: process.env.PATH, MINE: "kept" } }),
      { command: 'echo "$MINE $GIT_OPTIONAL_LOCKS $GIT_CONFIG_COUNT $GIT_CONFIG_KEY_0=$GIT_CONFIG_VALUE_0"' },
      toolContext(dir),
    );
    expect(output).toBe("kept 0 1 diff.autoRefreshIndex=false\n");
  });

  it("git's config entries from the environment are numbered after the ones already there", () => {
    const env = withCommandEnvironment({
      GIT_CONFIG_COUNT: "2",
      GIT_CONFIG_KEY_0: "a.b",
      GIT_CONFIG_VALUE_0: "1",
      GIT_CONFIG_KEY_1: "c.d",
      GIT_CONFIG_VALUE_1: "2",
    });
    expect(env).toMatchObject({
      GIT_CONFIG_COUNT: "3",
      GIT_CONFIG_KEY_0: "a.b",
      GIT_CONFIG_KEY_1: "c.d",
      GIT_CONFIG_KEY_2: "diff.autoRefreshIndex",
      GIT_CONFIG_VALUE_2: "false",
      GIT_OPTIONAL_LOCKS: "0",
    });
    expect(withCommandEnvironment({ GIT_CONFIG_COUNT: "junk" }).GIT_CONFIG_COUNT).toBe("1");
  });

  it("a runner given no variables uses its environment unchanged", async () => {
    const runner = localProcessRunner({ env: { PATH: process.env.PATH } });
    let output = "";
    for await (const chunk of runner.run({
      command: 'echo "[$GIT_OPTIONAL_LOCKS]"',
      cwd: dir,
      timeoutMs: 10_000,
      maxOutputChars: 1000,
      signal: new AbortController().signal,
    }))
      output += chunk;
    expect(output).toBe("[]\n");
  });

  it("git status, diff and log through the Bash tool leave .git/index as it was", async () => {
    const repo = join(dir, "repo");
    mkdirSync(repo);
    const git = (...args: string[]) =>
      execFileSync("git", ["-c", "user.name=t", "-c", "user.email=t@t", ...args], {
        cwd: repo,
        stdio: "ignore",
      });
    writeFileSync(join(repo, "a.txt"), "a\n");
    git("init", "-q");
    git("add", "a.txt");
    git("commit", "-qm", "x");
    const index = join(repo, ".git", "index");
    const bash = bashTool({ env: { PATH: process.env.PATH, HOME: dir } });
    for (const command of [
      "git status",
      "git diff",
      "git diff --stat HEAD",
      "git log -p",
      "git blame a.txt",
    ]) {
      // Only the stat data changes: git would refresh the index to record it.
      const later = new Date(Date.now() + 5_000);
      utimesSync(join(repo, "a.txt"), later, later);
      const before = { mtimeMs: statSync(index).mtimeMs, bytes: readFileSync(index) };
      await run(bash, { command }, toolContext(repo));
      expect(statSync(index).mtimeMs, command).toBe(before.mtimeMs);
      expect(readFileSync(index).equals(before.bytes), command).toBe(true);
    }
    // Without it, git does write: the check above would see the change.
    const later = new Date(Date.now() + 10_000);
    utimesSync(join(repo, "a.txt"), later, later);
    const before = statSync(index).mtimeMs;
    execFileSync("git", ["status"], {
      cwd: repo,
      stdio: "ignore",
      env: { PATH: process.env.PATH, HOME: dir },
    });
    expect(statSync(index).mtimeMs).not.toBe(before);
  });

  /** BubblewrapRunner applies the request's variables over the sandbox's own environment. */
  (sandbox === undefined ? it : it.skip)("in a bubblewrap sandbox, commands see it too", async () => {
    const runner = new BubblewrapRunner(dir, { maxProcesses: null });
    const output = await run(
      bashTool({ runner }),
      { command: 'echo "[$GIT_OPTIONAL_LOCKS]"' },
      toolContext(dir),
    );
    expect(output).toBe("[0]\n");
  });
});
