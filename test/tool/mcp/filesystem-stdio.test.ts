import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ToolError } from "../../../src/tool/index.js";
import { McpClient, type McpTool } from "../../../src/tool/mcp/index.js";
import { runTool, serverEntry, textOfChunks, toolNamed } from "./helpers.js";

describe("McpClient over stdio with @modelcontextprotocol/server-filesystem", () => {
  const allowed = mkdtempSync(join(tmpdir(), "agentscope-mcp-fs-"));
  const outside = mkdtempSync(join(tmpdir(), "agentscope-mcp-outside-"));
  const client = new McpClient({
    name: "fs",
    transport: "stdio",
    command: process.execPath,
    args: [serverEntry("@modelcontextprotocol/server-filesystem"), allowed],
  });
  let tools: McpTool[];

  beforeAll(async () => {
    writeFileSync(join(allowed, "notes.txt"), "inside the sandbox\n");
    writeFileSync(join(outside, "secret.txt"), "do not read\n");
    tools = await client.tools();
  });
  afterAll(async () => {
    await client.close();
    rmSync(allowed, { recursive: true, force: true });
    rmSync(outside, { recursive: true, force: true });
  });

  it("marks readers read-only and writers (destructive) not", () => {
    expect(toolNamed(tools, "mcp__fs__read_text_file").readOnly).toBe(true);
    expect(toolNamed(tools, "mcp__fs__list_directory").readOnly).toBe(true);
    expect(toolNamed(tools, "mcp__fs__write_file").readOnly).toBe(false);
    expect(toolNamed(tools, "mcp__fs__create_directory").readOnly).toBe(false);
  });

  it("shows the model the server's own schema, $schema aside, and validates against it", async () => {
    const remote = (await client.listTools()).find((tool) => tool.name === "read_text_file");
    const { $schema: _ignored, ...schema } = (remote?.inputSchema ?? {}) as Record<string, unknown>;
    const read = toolNamed(tools, "mcp__fs__read_text_file");
    expect(read.inputSchema).toEqual(schema);
    expect(() => read.parse({ head: 3 })).toThrow(/must have required property 'path'/);
  });

  it("reads a file inside the allowed directory", async () => {
    const chunks = await runTool(toolNamed(tools, "mcp__fs__read_text_file"), {
      path: join(allowed, "notes.txt"),
    });
    expect(textOfChunks(chunks)).toBe("inside the sandbox\n");
  });

  it("writes a file, then lists it", async () => {
    await runTool(toolNamed(tools, "mcp__fs__write_file"), { path: join(allowed, "new.txt"), content: "hi" });
    const chunks = await runTool(toolNamed(tools, "mcp__fs__list_directory"), { path: allowed });
    expect(textOfChunks(chunks)).toContain("[FILE] new.txt");
  });

  it("a path outside the allowed directories is an access-denied ToolError", async () => {
    const read = runTool(toolNamed(tools, "mcp__fs__read_text_file"), { path: join(outside, "secret.txt") });
    await expect(read).rejects.toThrow(ToolError);
    await expect(read).rejects.toThrow(/Access denied - path outside allowed directories/);
  });
});
