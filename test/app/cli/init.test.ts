import { execFile } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

// `agentscope init` from the sources; test/build/pack.test.ts runs the same project on the packed package.
const run = promisify(execFile);
const root = join(import.meta.dirname, "../../..");
const own = JSON.parse(readFileSync(join(root, "package.json"), "utf8")) as {
  version: string;
  dependencies: Record<string, string>;
};
// tsx as a file URL: the commands run in folders outside the repo.
const tsx = pathToFileURL(join(root, "node_modules/tsx/dist/loader.mjs")).href;
let work: string;

const cli = (args: string[], cwd = work) =>
  run(process.execPath, ["--import", tsx, join(root, "src/app/cli/main.ts"), ...args], {
    cwd,
    timeout: 30_000,
  });

async function failure(promise: Promise<unknown>): Promise<{ stderr: string; code: number }> {
  try {
    await promise;
  } catch (error) {
    return error as { stderr: string; code: number };
  }
  throw new Error("the command succeeded");
}

beforeAll(() => {
  work = mkdtempSync(join(tmpdir(), "agentscope-init-"));
});
afterAll(() => rmSync(work, { recursive: true, force: true }));

describe("agentscope init", () => {
  it("writes the project into a new folder and says what to run next", async () => {
    const { stdout } = await cli(["init", "My Agent"]);
    expect(stdout).toContain("created My Agent: package.json, tsconfig.json, agentscope.config.ts");
    expect(stdout).toMatch(/cd My Agent\n {2}npm install\n {2}npm test/);
    const dir = join(work, "My Agent");
    const pkg = JSON.parse(readFileSync(join(dir, "package.json"), "utf8"));
    expect(pkg).toMatchObject({
      name: "my-agent",
      type: "module",
      dependencies: { agentscope: `^${own.version}`, zod: own.dependencies.zod },
      scripts: { test: "tsx --test test/*.test.ts", start: "agentscope serve" },
    });
    expect(Object.keys(pkg.devDependencies)).toEqual(["@types/node", "tsx", "typescript"]);
    for (const file of [
      "model.ts",
      "tools/local-time.ts",
      "test/agent.test.ts",
      ".env.example",
      ".gitignore",
    ])
      expect(readFileSync(join(dir, file), "utf8").length, file).toBeGreaterThan(10);
    expect(readFileSync(join(dir, ".gitignore"), "utf8")).toContain(".env\n");
  }, 40_000);

  it("never overwrites: a folder with one of its files is refused whole, naming the file", async () => {
    const dir = join(work, "taken");
    mkdirSync(dir);
    writeFileSync(join(dir, "tsconfig.json"), "{}\n");
    const { stderr, code } = await failure(cli(["init", "taken"]));
    expect(code).toBe(1);
    expect(stderr).toContain("init: taken already has tsconfig.json");
    expect(stderr).toContain("hint: pick a new folder");
    expect(stderr).not.toContain("looks like a bug");
    expect(readFileSync(join(dir, "tsconfig.json"), "utf8")).toBe("{}\n");
    expect(() => readFileSync(join(dir, "package.json"))).toThrow();
  }, 40_000);

  it("takes one folder at most", async () => {
    const { stderr } = await failure(cli(["init", "a", "b"]));
    expect(stderr).toContain("init takes at most one folder");
  }, 40_000);

  it("the project's own tests pass offline (agentscope resolved to the sources here)", async () => {
    await cli(["init", "offline"]);
    const dir = join(work, "offline");
    // The project's imports of "agentscope" point at src/; zod and tsx come from the repo's node_modules.
    symlinkSync(join(root, "node_modules"), join(dir, "node_modules"), "dir");
    writeFileSync(
      join(dir, "tsconfig.sources.json"),
      JSON.stringify({
        extends: "./tsconfig.json",
        compilerOptions: {
          paths: { agentscope: [join(root, "src/index.ts")], "agentscope/*": [join(root, "src/*/index.ts")] },
        },
      }),
    );
    const env: NodeJS.ProcessEnv = { ...process.env, TSX_TSCONFIG_PATH: "tsconfig.sources.json" };
    for (const key of [
      "OPENAI_API_KEY",
      "ANTHROPIC_API_KEY",
      "GEMINI_API_KEY",
      "DASHSCOPE_API_KEY",
      "OLLAMA_HOST",
    ])
      delete env[key];
    delete env.AGENTSCOPE_MODEL;
    const { stdout } = await run(process.execPath, ["--import", tsx, "--test", "test/agent.test.ts"], {
      cwd: dir,
      env,
      timeout: 60_000,
    });
    // node:test's summary: TAP on Node 20 and 22, the spec reporter's "ℹ pass 3" on 24.
    expect(stdout).toMatch(/^(#|ℹ) pass 3$/m);
    expect(stdout).toMatch(/^(#|ℹ) fail 0$/m);
  }, 70_000);
});
