import { type ChildProcess, execFile, spawn } from "node:child_process";
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { OPTIONAL_PACKAGES } from "../../src/state/lazy-driver.js";
import { reportMissingService } from "../support/services.js";

// The published package as a user gets it: `npm run build`, `npm pack`, then the project that
// `agentscope init` writes installs the tarball (and its other packages) from the npm registry, with
// none of the optional packages. Needs the registry: skipped with a message when it cannot be
// reached, except where AGENTSCOPE_REQUIRE_SERVICES=1 (CI), where that is a failure.
const run = promisify(execFile);
const root = join(import.meta.dirname, "../..");
const pkg = JSON.parse(readFileSync(join(root, "package.json"), "utf8")) as {
  version: string;
  exports: Record<string, unknown>;
};
const PROVIDER_KEYS = [
  "OPENAI_API_KEY",
  "ANTHROPIC_API_KEY",
  "GEMINI_API_KEY",
  "DASHSCOPE_API_KEY",
  "OLLAMA_HOST",
];
// npm runs the Node that runs this test (CI also runs the suite on other Node versions).
const npmEnv: NodeJS.ProcessEnv = {
  ...process.env,
  PATH: `${dirname(process.execPath)}:${process.env.PATH}`,
};
for (const key of [...PROVIDER_KEYS, "AGENTSCOPE_MODEL", "AGENTSCOPE_TOKENS"]) delete npmEnv[key];

async function registryReachable(): Promise<boolean> {
  try {
    await run("npm", ["ping"], { timeout: 20_000, env: npmEnv });
    return true;
  } catch {
    return false;
  }
}

const online = await registryReachable();
const OFFLINE =
  "the npm registry is unreachable (npm ping failed): these tests install the packed package from it";
if (!online) reportMissingService(OFFLINE);

let work: string;
let app: string;
let packed: string[];

const npm = (args: string[], cwd: string, timeout = 300_000) =>
  run("npm", args, { cwd, env: npmEnv, timeout });
const bin = (args: string[], cwd = app) =>
  run(process.execPath, [join(app, "node_modules/agentscope/dist/app/cli/main.js"), ...args], {
    cwd,
    env: npmEnv,
    timeout: 60_000,
  });

/** A consumer of every entry point but agentscope/react (that one needs react, an optional peer). */
function consumerSource(): string {
  const subpaths = Object.keys(pkg.exports).filter((subpath) => subpath !== "./react");
  const lines = subpaths.map((subpath, i) => `import * as entry${i} from "agentscope${subpath.slice(1)}";`);
  return [
    ...lines,
    'import { Agent, functionTool, userMsg, type Msg } from "agentscope";',
    'import type { ServiceConfig } from "agentscope/app";',
    'import { ScriptedModel } from "agentscope/testing";',
    'import { z } from "zod";',
    "",
    'const echo = functionTool({ name: "echo", description: "Echo", input: z.object({ text: z.string() }), execute: async ({ text }) => text });',
    'const agent = new Agent({ name: "a", model: new ScriptedModel([{ text: "hi" }]), toolkit: [echo] });',
    'export const reply: Promise<Msg> = agent.reply(userMsg("hello"));',
    'export const config = { agents: [{ name: "a", model: "openai:gpt-4o-mini", tools: [echo, "Read"] }] } satisfies ServiceConfig;',
    `export const entries = [${subpaths.map((_, i) => `entry${i}`).join(", ")}];`,
    "",
  ].join("\n");
}

interface Server {
  process: ChildProcess;
  url: string;
  output: () => string;
}

/** `agentscope serve --port 0` in the project; resolves once it listens, rejects with its output if it exits. */
function serve(): Promise<Server> {
  const child = spawn(
    process.execPath,
    [join(app, "node_modules/agentscope/dist/app/cli/main.js"), "serve", "--port", "0"],
    {
      cwd: app,
      env: npmEnv,
    },
  );
  let output = "";
  return new Promise((resolvePromise, reject) => {
    const timer = setTimeout(() => reject(new Error(`serve did not start:\n${output}`)), 60_000);
    const onData = (data: Buffer) => {
      output += data.toString();
      const url = /listening on (http:\/\/\S+)/.exec(output)?.[1];
      if (url) {
        clearTimeout(timer);
        resolvePromise({ process: child, url, output: () => output });
      }
    };
    child.stdout.on("data", onData);
    child.stderr.on("data", onData);
    child.on("exit", (code) => {
      clearTimeout(timer);
      reject(Object.assign(new Error(`serve exited with ${code}:\n${output}`), { output }));
    });
  });
}

async function stop(server: Server): Promise<void> {
  const exited = new Promise((done) => server.process.once("exit", done));
  server.process.kill("SIGTERM");
  await exited;
}

beforeAll(async () => {
  if (!online) return;
  work = mkdtempSync(join(tmpdir(), "agentscope-pack-"));
  await npm(["run", "build"], root);
  const { stdout } = await npm(["pack", "--json", "--pack-destination", work], root);
  const [info] = JSON.parse(stdout) as Array<{ filename: string; files: Array<{ path: string }> }>;
  packed = info!.files.map((file) => file.path);
  const tarball = join(work, info!.filename);
  await run(process.execPath, [join(root, "dist/app/cli/main.js"), "init", "app"], {
    cwd: work,
    env: npmEnv,
  });
  app = join(work, "app");
  const manifest = JSON.parse(readFileSync(join(app, "package.json"), "utf8"));
  manifest.dependencies.agentscope = `file:${tarball}`;
  writeFileSync(join(app, "package.json"), JSON.stringify(manifest, null, 2));
  writeFileSync(join(app, "consumer.ts"), consumerSource());
  await npm(["install", "--no-audit", "--no-fund"], app);
}, 600_000);

afterAll(() => {
  if (work) rmSync(work, { recursive: true, force: true });
});

describe.skipIf(!online)("the packed package, installed in the project agentscope init writes", () => {
  it("ships the build, the sources its maps point at, and no tests", () => {
    expect(packed).toContain("dist/index.js");
    expect(packed).toContain("dist/index.d.ts");
    expect(packed).toContain("dist/app/cli/main.js");
    expect(packed).toContain("src/index.ts");
    expect(packed).toContain("README.md");
    expect(packed.filter((file) => file.startsWith("test/") || file.startsWith("examples/"))).toEqual([]);
  });

  it("installs no optional package", () => {
    for (const name of Object.keys(OPTIONAL_PACKAGES))
      expect(existsSync(join(app, "node_modules", name)), name).toBe(false);
  });

  it("the project's tests pass offline (npm test)", async () => {
    const { stdout } = await npm(["test"], app, 120_000);
    // node:test's summary: TAP on Node 20 and 22, the spec reporter's "ℹ pass 3" on 24.
    expect(stdout).toMatch(/^(#|ℹ) pass 3$/m);
    expect(stdout).toMatch(/^(#|ℹ) fail 0$/m);
  }, 130_000);

  it("tsc --strict without skipLibCheck passes over the project and a consumer of every entry point", async () => {
    const tsconfig = JSON.parse(readFileSync(join(app, "tsconfig.json"), "utf8"));
    expect(tsconfig.compilerOptions).toMatchObject({ strict: true });
    expect(tsconfig.compilerOptions.skipLibCheck).toBeUndefined();
    const result = await npm(["run", "typecheck"], app, 180_000).catch((error) => error);
    expect(result.stdout ?? "").not.toContain("error TS");
    expect(result.code ?? 0).toBe(0);
  }, 190_000);

  it("a missing embedded-store driver is one line with the command, not a bug report", async () => {
    let started: Server | undefined;
    try {
      started = await serve();
    } catch (error) {
      const output = (error as { output: string }).output;
      expect(output).toContain('needs the "better-sqlite3" package');
      expect(output).toContain("npm install better-sqlite3");
      expect(output).not.toContain("looks like a bug");
      expect(output).not.toMatch(/\n\s+at /); // no stack trace
    }
    // Zero-install is the goal where Node has node:sqlite; without it, the line above is the answer.
    if (started) await stop(started);
    const builtin = "node:sqlite"; // a variable: Node 20's types have no node:sqlite
    const nodeHasSqlite = await import(builtin).then(
      () => true,
      () => false,
    );
    if (!nodeHasSqlite) expect(started).toBeUndefined();
  }, 70_000);

  it("npx agentscope serve loads the .ts config and answers its health check on the embedded store", async () => {
    // As after `npm install better-sqlite3` (copied from this repo: built for this Node).
    for (const name of ["better-sqlite3", "bindings", "file-uri-to-path"])
      if (!existsSync(join(app, "node_modules", name)))
        cpSync(join(root, "node_modules", name), join(app, "node_modules", name), {
          recursive: true,
          dereference: true,
        });
    const server = await serve();
    try {
      expect(server.output()).toContain("(agents: assistant; store: sqlite)");
      const health = await fetch(`${server.url}/v1/health`);
      expect(health.status).toBe(200);
    } finally {
      await stop(server);
      for (const name of ["better-sqlite3", "bindings", "file-uri-to-path"])
        rmSync(join(app, "node_modules", name), { recursive: true, force: true });
    }
    expect(existsSync(join(app, ".agentscope/state.db"))).toBe(true);
  }, 90_000);

  it("stack traces point into files the package ships (source maps and sources)", async () => {
    const script =
      'import { userMsg } from "agentscope"; try { userMsg([{ type: "tool_call", id: "x", name: "y", input: "{}" }]); } catch (error) { console.log(error.stack); }';
    const { stdout } = await run(
      process.execPath,
      ["--enable-source-maps", "--input-type=module", "-e", script],
      {
        cwd: app,
        env: npmEnv,
      },
    );
    const frames = [...stdout.matchAll(/(\/[^\s():]*node_modules\/agentscope\/[^\s():]+):\d+:\d+/g)].map(
      (m) => m[1]!,
    );
    expect(frames.length).toBeGreaterThan(0);
    expect(frames.some((file) => file.includes("/agentscope/src/"))).toBe(true);
    for (const file of frames) expect(existsSync(file), file).toBe(true);
  }, 30_000);

  it("every source map entry is a shipped file, or a bundled dependency with its text inlined", () => {
    const dist = join(app, "node_modules/agentscope/dist");
    const maps = packed.filter((file) => file.endsWith(".map"));
    expect(maps.length).toBeGreaterThan(10);
    for (const map of maps) {
      const { sources, sourcesContent } = JSON.parse(readFileSync(join(dist, "..", map), "utf8")) as {
        sources: string[];
        sourcesContent?: string[];
      };
      sources.forEach((source, i) => {
        const file = resolve(dirname(join(dist, "..", map)), source);
        if (/node_modules\/(zod|eventsource-parser)\//.test(source))
          expect(sourcesContent?.[i], source).toBeTruthy();
        else expect(existsSync(file), `${map}: ${source}`).toBe(true);
      });
    }
  });

  it("a TypeScript config without a loader to run it is one line saying how to get one", async () => {
    const bare = join(work, "bare");
    mkdirSync(bare);
    cpSync(join(app, "agentscope.config.ts"), join(bare, "agentscope.config.ts"));
    writeFileSync(join(bare, "package.json"), '{ "type": "module" }');
    const stripsTypes = Boolean((process.features as { typescript?: unknown }).typescript);
    const result = await bin(["serve", "--port", "0"], bare).catch((error) => error);
    if (stripsTypes) {
      // Node strips the types itself, but cannot map the config's "./model.js" import to model.ts.
      expect(result.stderr).toContain("cannot load the config file");
    } else {
      expect(result.stderr).toContain("no TypeScript loader is installed");
      expect(result.stderr).toContain("npm install --save-dev tsx");
    }
    expect(result.stderr).not.toContain("looks like a bug");
  }, 70_000);
});
