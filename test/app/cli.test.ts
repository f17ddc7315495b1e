import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parseServiceConfig } from "../../src/app/server/config/service-config.js";
import { isType, json, readSse } from "./helpers.js";

// --import resolves from the working directory, which is a temp dir here: name the loader's file.
const tsx = createRequire(import.meta.url).resolve("tsx");
const main = fileURLToPath(new URL("../../src/app/cli/main.ts", import.meta.url));
const config = fileURLToPath(new URL("./fixtures/cli.config.ts", import.meta.url));
const dir = mkdtempSync(join(tmpdir(), "agentscope-cli-"));
const countFile = join(dir, "count.txt");

function cli(
  args: string[],
  stdin?: string,
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, ["--import", tsx, main, ...args], {
    cwd: dir,
    env: { ...process.env, COUNT_FILE: countFile, AGENTSCOPE_TOKENS: "" },
    stdio: ["pipe", "pipe", "pipe"],
  });
  child.stdin.end(stdin ?? "");
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (d) => {
    stdout += d;
  });
  child.stderr.on("data", (d) => {
    stderr += d;
  });
  return new Promise((resolve) => child.once("exit", (code) => resolve({ code, stdout, stderr })));
}

let server: ChildProcess | undefined;
let url = "";
let served = "";
beforeAll(async () => {
  server = spawn(
    process.execPath,
    [
      "--import",
      tsx,
      main,
      "serve",
      "--config",
      config,
      "--port",
      "0",
      "--store",
      `sqlite:${join(dir, "state.db")}`,
    ],
    {
      cwd: dir,
      env: { ...process.env, COUNT_FILE: countFile, AGENTSCOPE_TOKENS: "" },
      stdio: ["ignore", "pipe", "pipe"],
    },
  );
  url = await new Promise<string>((resolve, reject) => {
    server!.stdout!.on("data", (d) => {
      served += d;
      const found = /listening on (http\S+)/.exec(served)?.[1];
      if (found) resolve(found);
    });
    server!.once("exit", (code) => reject(new Error(`serve exited with ${code}`)));
  });
}, 30_000);
afterAll(async () => {
  if (server && server.exitCode === null) {
    const exited = new Promise((resolve) => server!.once("exit", resolve));
    server.kill("SIGTERM");
    await exited;
  }
  rmSync(dir, { recursive: true, force: true });
});

describe("agentscope", () => {
  it("prints help for the program and for each command", async () => {
    const [top, chat, serve, demo] = await Promise.all([
      cli(["--help"]),
      cli(["chat", "--help"]),
      cli(["serve", "--help"]),
      cli(["demo", "--help"]),
    ]);
    expect(top.stdout).toContain("Usage: agentscope <command>");
    for (const [out, name] of [
      [chat, "chat"],
      [serve, "serve"],
      [demo, "demo"],
    ] as const) {
      expect(out.code).toBe(0);
      expect(out.stdout).toContain(`Usage: agentscope ${name}`);
    }
    const unknown = await cli(["fly"]);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain('unknown command "fly"');
  }, 30_000);

  it("serve: says it is local-only without tokens, and serves a client a full reply", async () => {
    expect(served).toContain("127.0.0.1 only");
    expect(await json(fetch(`${url}/v1/health`))).toMatchObject({
      status: "ok",
      agents: ["main"],
      backend: "sqlite",
    });
    const { sessionId } = await json(fetch(`${url}/v1/sessions`, { method: "POST" }));
    const post = (path: string, body: unknown) =>
      fetch(`${url}/v1/sessions/${sessionId}/${path}`, {
        method: "POST",
        headers: { accept: "text/event-stream", "content-type": "application/json" },
        body: JSON.stringify(body),
      });
    const paused = (await readSse(await post("replies", { text: "hi" }))).frames;
    const ask = paused.at(-1)?.data as { type: string; toolCalls: Array<{ id: string }> };
    expect(ask.type).toBe("REQUIRE_USER_CONFIRM");
    const done = (
      await readSse(
        await post("confirm", { answers: [{ toolCallId: ask.toolCalls[0]!.id, confirmed: true }] }),
        isType("REPLY_END"),
      )
    ).frames;
    expect(done.at(-1)?.data).toMatchObject({ type: "REPLY_END", finishedReason: "completed" });
  });

  it("chat with stdin piped: streams the reply, asks y/n/always, and runs the tool when told yes", async () => {
    writeFileSync(countFile, "");
    const { code, stdout } = await cli(["chat", "--config", config], "record please\ny\n/exit\n");
    expect(code).toBe(0);
    expect(stdout).toContain("thinking: I will record it.");
    expect(stdout).toContain("→ record");
    expect(stdout).toContain("Allow record? [y]es / [n]o / [a]lways (remember record):");
    expect(stdout).toContain("recorded hello ✓");
    expect(stdout).toContain("Recorded, all done.");
    expect(readFileSync(countFile, "utf8")).toBe("hello\n");
  }, 30_000);

  it("chat --url against a running server: a refusal reaches the model and the tool does not run", async () => {
    writeFileSync(countFile, "");
    const { code, stdout, stderr } = await cli(["chat", "--url", url], "record please\nn\n");
    expect(stderr).toBe("");
    expect(code).toBe(0);
    expect(stdout).toContain("Allow record?");
    expect(stdout).toContain("✗ denied");
    expect(readFileSync(countFile, "utf8")).toBe("");
  }, 30_000);

  it("chat: Ctrl-C interrupts the reply, not the program", async () => {
    const child = spawn(process.execPath, ["--import", tsx, main, "chat", "--config", config], {
      cwd: dir,
      env: { ...process.env, COUNT_FILE: countFile, DELAY_MS: "100" },
      stdio: ["pipe", "pipe", "pipe"],
    });
    let stdout = "";
    const seen = (text: string) =>
      new Promise<void>((resolve) => {
        const check = () => stdout.includes(text) && resolve();
        child.stdout.on("data", (d) => {
          stdout += d;
          check();
        });
        check();
      });
    child.stdin.write("record please\n");
    await seen("thinking:");
    child.kill("SIGINT");
    await seen("[interrupted]");
    child.stdin.end("/exit\n");
    const code = await new Promise((resolve) => child.once("exit", resolve));
    expect(code).toBe(0);
    expect(stdout).toContain("[interrupting the reply]");
    expect(stdout).not.toContain("Allow record?");
  }, 30_000);

  it("a config with a bad field is refused, naming the field", async () => {
    expect(() => parseServiceConfig({ agents: [{ name: "a", model: 5 }] })).toThrow(/agents\[0\]\.model/);
    expect(() => parseServiceConfig({ agents: [] })).toThrow(/agents/);
    expect(() => parseServiceConfig({ agents: [{ name: "a", model: "openai:x", tools: ["Nope"] }] })).toThrow(
      /agents\[0\]\.tools\[0\]/,
    );
    const bad = join(dir, "bad.json");
    writeFileSync(
      bad,
      JSON.stringify({ agents: [{ name: "a", model: "openai:gpt-4o-mini", permission: { mode: "yolo" } }] }),
    );
    const { code, stderr } = await cli(["serve", "--config", bad, "--port", "0"]);
    expect(code).toBe(1);
    expect(stderr).toContain("agents[0].permission.mode");
  }, 30_000);
});
