import { execFileSync } from "node:child_process";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { functionTool, Toolkit, ToolNameCollisionError } from "../../../src/tool/index.js";
import { McpClient, mcpToolName, registerMcpClient } from "../../../src/tool/mcp/index.js";
import { everythingConfig, isAlive } from "./helpers.js";

describe("registerMcpClient", () => {
  const client = new McpClient(everythingConfig());
  afterAll(() => client.close());

  it("refuses a name that is taken and registers nothing", async () => {
    const clash = functionTool({
      name: "mcp__everything__echo",
      description: "local",
      input: z.object({}),
      execute: () => "local",
    });
    const toolkit = new Toolkit([clash]);
    await expect(registerMcpClient(toolkit, client)).rejects.toThrow(ToolNameCollisionError);
    expect(toolkit.list()).toEqual([clash]);
  });

  it("adds the server's tools in a new active group, and toolkit.close() closes the server", async () => {
    const toolkit = new Toolkit();
    const tools = await registerMcpClient(toolkit, client, { group: "everything" });
    expect(toolkit.listGroups()).toContainEqual(
      expect.objectContaining({ name: "everything", active: true }),
    );
    expect(toolkit.isActive("mcp__everything__get-sum")).toBe(true);
    expect(toolkit.schemas().map((schema) => schema.name)).toEqual(tools.map((tool) => tool.name));
    toolkit.deactivateGroups("everything");
    expect(toolkit.schemas()).toEqual([]);
    const pid = client.pid as number;
    await toolkit.close();
    expect(client.connected).toBe(false);
    expect(isAlive(pid)).toBe(false);
  });
});

describe("MCP tool names", () => {
  it("replace characters the Toolkit does not allow and stay within 128 characters", () => {
    expect(mcpToolName("my server", "files.read")).toBe("mcp__my_server__files_read");
    const long = mcpToolName("s", "x".repeat(300));
    expect(long).toMatch(/^mcp__s__x+_[0-9a-f]{8}$/);
    expect(long).toHaveLength(128);
    expect(mcpToolName("s", `${"x".repeat(300)}y`)).not.toBe(long);
  });
});

/** Imports src/tool in a fresh Node process and prints the node_modules packages it loaded. */
const LIST_LOADED = `
import { tsImport } from "tsx/esm/api";
const loaded = new Set();
await tsImport("./src/tool/index.ts", {
  parentURL: "file://" + process.cwd() + "/",
  onImport: (url) => { const m = /node_modules\\/((?:@[^/]+\\/)?[^/]+)/.exec(url); if (m) loaded.add(m[1]); },
});
console.log(JSON.stringify([...loaded]));
`;

describe("the MCP SDK stays off the import path", () => {
  it("importing the tool layer loads neither @modelcontextprotocol/sdk nor ajv", () => {
    const output = execFileSync(process.execPath, ["--input-type=module", "-e", LIST_LOADED], {
      cwd: join(import.meta.dirname, "../../.."),
      encoding: "utf8",
    });
    const loaded = JSON.parse(output) as string[];
    expect(loaded).toContain("zod");
    expect(loaded).not.toContain("@modelcontextprotocol/sdk");
    expect(loaded).not.toContain("ajv");
  });
});
