import { spawn } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import { createRequire } from "node:module";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { serve } from "@hono/node-server";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createApp } from "../../src/app/server/app.js";
import { memoryBackend } from "../../src/app/server/backend/memory-backend.js";
import { ServiceRuntime } from "../../src/app/server/runtime/service-runtime.js";
import { conversationModel } from "./fixtures/agents.js";

const tsx = createRequire(import.meta.url).resolve("tsx");
const main = fileURLToPath(new URL("../../src/app/cli/main.ts", import.meta.url));
const config = fileURLToPath(new URL("./fixtures/cli.config.ts", import.meta.url));
const dir = mkdtempSync(join(tmpdir(), "agentscope-cli-errors-"));

function cli(args: string[]): Promise<{ code: number | null; stderr: string }> {
  const child = spawn(process.execPath, ["--import", tsx, main, ...args], {
    cwd: dir,
    env: { ...process.env, AGENTSCOPE_TOKENS: "", AGENTSCOPE_TOKEN: "", AGENTSCOPE_DEBUG: "" },
    stdio: ["pipe", "pipe", "pipe"],
  });
  child.stdin.end("");
  let stderr = "";
  child.stderr.on("data", (d) => {
    stderr += d;
  });
  child.stdout.resume();
  return new Promise((resolve) => child.once("exit", (code) => resolve({ code, stderr })));
}

/** One line that names the failure, one hint line, no stack frames. */
function expectOneClearLine(stderr: string, what: RegExp, hint: RegExp): void {
  const lines = stderr.trim().split("\n");
  expect(lines[0]).toMatch(/^agentscope: /);
  expect(lines[0]).toMatch(what);
  expect(lines[1]).toMatch(hint);
  expect(lines).toHaveLength(2);
  expect(stderr).not.toMatch(/\n\s+at /);
}

describe("the CLI reports failures as one line and a hint", () => {
  let runtime: ServiceRuntime;
  let server: Server;
  let url: string;
  beforeAll(async () => {
    runtime = new ServiceRuntime({
      backend: memoryBackend(),
      agents: [{ name: "main", model: conversationModel() }],
    });
    const app = createApp(runtime, { tokens: new Map([["right", "alice"]]) });
    server = serve({ fetch: app.fetch, hostname: "127.0.0.1", port: 0 }) as Server;
    await new Promise<void>((resolve) => server.once("listening", () => resolve()));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
    await runtime.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it("a rejected token (401)", async () => {
    const { code, stderr } = await cli(["chat", "--url", url, "--token", "wrong"]);
    expect(code).toBe(1);
    expectOneClearLine(stderr, /401/, /hint: .*--token/);
  }, 30_000);

  it("an unreachable --url", async () => {
    // A port that was free a moment ago: nothing listens there.
    const probe = createServer();
    await new Promise<void>((resolve) => probe.listen(0, "127.0.0.1", () => resolve()));
    const port = (probe.address() as AddressInfo).port;
    await new Promise<void>((resolve) => probe.close(() => resolve()));
    const { code, stderr } = await cli(["chat", "--url", `http://127.0.0.1:${port}`]);
    expect(code).toBe(1);
    expectOneClearLine(
      stderr,
      new RegExp(`cannot reach http://127.0.0.1:${port}: ECONNREFUSED`),
      /hint: .*serve/,
    );
  }, 30_000);

  it("an unsupported store, and mysql:// which only keeps agent state", async () => {
    const bad = await cli(["serve", "--config", config, "--store", "mongodb://x", "--port", "0"]);
    expect(bad.code).toBe(1);
    expect(bad.stderr.trim().split("\n")).toHaveLength(1);
    expect(bad.stderr).toMatch(/unsupported store URL "mongodb:\/\/x".*sqlite:/);
    const mysql = await cli([
      "serve",
      "--config",
      config,
      "--store",
      "mysql://root@127.0.0.1/db",
      "--port",
      "0",
    ]);
    expect(mysql.code).toBe(1);
    expect(mysql.stderr).toMatch(/MySQL keeps agent state .* cannot back the service/);
    expect(mysql.stderr).not.toMatch(/\n\s+at /);
  }, 30_000);
});

it('a .ts config in a package without "type": "module" loads, or the error says exactly what to change', async () => {
  const project = mkdtempSync(join(tmpdir(), "agentscope-cjs-"));
  const serveIn = async (source: string) => {
    writeFileSync(join(project, "agents.ts"), source);
    const child = spawn(
      process.execPath,
      ["--import", tsx, main, "serve", "--config", "agents.ts", "--port", "0"],
      {
        cwd: project,
        env: { ...process.env, AGENTSCOPE_TOKENS: "" },
        stdio: ["ignore", "ignore", "pipe"],
      },
    );
    let stderr = "";
    child.stderr.on("data", (d) => {
      stderr += d;
    });
    const code = await new Promise((resolve) => child.once("exit", resolve));
    return { code, stderr };
  };
  try {
    writeFileSync(join(project, "package.json"), JSON.stringify({ name: "my-app", version: "1.0.0" }));
    // Loads: the error is about its store, not about a missing `agents`.
    const plain = await serveIn(
      'const name: string = "helper";\nexport default { agents: [{ name, model: "openai:gpt-4o-mini" }], store: "mongodb://x" };\n',
    );
    expect(plain.code).toBe(1);
    expect(plain.stderr).toMatch(/unsupported store URL "mongodb:\/\/x"/);
    // ESM-only syntax in a CommonJS package: the message names both fixes.
    const esmOnly = await serveIn(
      'const name = await Promise.resolve("helper");\nexport default { agents: [{ name, model: "openai:gpt-4o-mini" }] };\n',
    );
    expect(esmOnly.code).toBe(1);
    expect(esmOnly.stderr).toContain('add "type": "module"');
    expect(esmOnly.stderr).toContain("agents.mts");
  } finally {
    rmSync(project, { recursive: true, force: true });
  }
}, 30_000);
