import { execFile } from "node:child_process";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { mcpRoutes } from "../../../src/app/bridges/index.js";
import { ScriptedModel } from "../../../src/testing/index.js";
import { startUiChatServer, type UiChatServer } from "./ui-chat-fixture.js";

// The MCP Inspector's CLI (the npm package @modelcontextprotocol/inspector, a devDependency) lists
// and calls the service's agents over Streamable HTTP, offline, as a host would.
const run = promisify(execFile);
const inspectorRoot = dirname(
  createRequire(import.meta.url).resolve("@modelcontextprotocol/inspector/package.json"),
);

describe("the MCP Inspector CLI against /v1/mcp", () => {
  let server: UiChatServer;
  let home: string;
  let launcher: string;

  beforeAll(async () => {
    const manifest = JSON.parse(await readFile(join(inspectorRoot, "package.json"), "utf8")) as {
      bin: { inspector: string };
    };
    launcher = join(inspectorRoot, manifest.bin.inspector);
    server = await startUiChatServer(
      [
        { name: "helper", model: new ScriptedModel([{ text: "Hello from helper." }, { text: "Again." }]) },
        { name: "writer", model: new ScriptedModel([{ text: "unused" }]) },
      ],
      (runtime) => [mcpRoutes(runtime)],
    );
    // The Inspector keeps a catalog and storage under the home directory: a throwaway one here.
    home = await mkdtemp(join(tmpdir(), "inspector-home-"));
  }, 30_000);
  afterAll(async () => {
    await server?.close();
    if (home) await rm(home, { recursive: true, force: true });
  });

  const inspector = (token: string, ...args: string[]) =>
    run(
      process.execPath,
      [launcher, "--cli", `${server.base}/v1/mcp`, "--header", `Authorization: Bearer ${token}`, ...args],
      {
        env: {
          ...process.env,
          HOME: home,
          MCP_STORAGE_DIR: join(home, "storage"),
          MCP_CATALOG_PATH: join(home, "mcp.json"),
        },
        timeout: 30_000,
      },
    );

  it("tools/list: each agent is a tool taking a prompt", async () => {
    const { stdout } = await inspector("alice-token", "--method", "tools/list");
    const { tools } = JSON.parse(stdout) as {
      tools: Array<{ name: string; inputSchema: { required: string[] } }>;
    };
    expect(tools.map((t) => t.name)).toEqual(["helper", "writer"]);
    expect(tools[0]?.inputSchema.required).toEqual(["prompt"]);
  }, 40_000);

  it("tools/call: the agent's answer, in a session of the caller's that another user cannot continue", async () => {
    const { stdout } = await inspector(
      "alice-token",
      "--method",
      "tools/call",
      "--tool-name",
      "helper",
      "--tool-arg",
      "prompt=Hi",
    );
    const result = JSON.parse(stdout) as {
      content: Array<{ text: string }>;
      _meta: { agentscope: { session_id: string; status: string } };
    };
    expect(result.content).toEqual([{ type: "text", text: "Hello from helper." }]);
    expect(result._meta.agentscope.status).toBe("completed");
    const sessionId = result._meta.agentscope.session_id;
    expect((await server.runtime.getSession("alice", sessionId)).agent).toBe("helper");

    const bob = await inspector(
      "bob-token",
      "--method",
      "tools/call",
      "--tool-name",
      "helper",
      "--tool-arg",
      "prompt=Hi",
      `session_id=${sessionId}`,
    ).then(
      (ok) => ok.stdout,
      (failed: { stdout: string }) => failed.stdout,
    );
    expect(bob).toContain("does not exist");
    expect(bob).not.toContain("Again.");
  }, 40_000);

  it("a wrong token is refused (401), and the CLI says so", async () => {
    const failed = await inspector("nobody", "--method", "tools/list").then(
      () => undefined,
      (error: { stdout: string; stderr: string }) => error,
    );
    expect(failed).toBeDefined();
    expect(`${failed?.stdout}${failed?.stderr}`).toMatch(/auth_required|401/);
  }, 40_000);
});
