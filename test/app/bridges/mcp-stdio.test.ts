import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { ElicitRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import { afterAll, describe, expect, it } from "vitest";

const tsx = createRequire(import.meta.url).resolve("tsx");
const main = fileURLToPath(new URL("../../../src/app/cli/main.ts", import.meta.url));
const config = fileURLToPath(new URL("../fixtures/cli.config.ts", import.meta.url));
const dir = mkdtempSync(join(tmpdir(), "agentscope-mcp-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("agentscope mcp (stdio) with the MCP SDK's client", () => {
  it("lists the config's agents and answers a call, confirming the tool through elicitation", async () => {
    const countFile = join(dir, "count.txt");
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: ["--import", tsx, main, "mcp", "--config", config],
      cwd: dir,
      env: { ...(process.env as Record<string, string>), COUNT_FILE: countFile },
      stderr: "pipe",
    });
    const client = new Client(
      { name: "desktop-host", version: "1.0.0" },
      { capabilities: { elicitation: {} } },
    );
    const asked: string[] = [];
    client.setRequestHandler(ElicitRequestSchema, (request) => {
      asked.push(request.params.message);
      return { action: "accept", content: { approved: true } };
    });
    await client.connect(transport);
    try {
      const { tools } = await client.listTools();
      expect(tools.map((t) => t.name)).toEqual(["main"]);
      const result = await client.callTool({ name: "main", arguments: { prompt: "remember hello" } });
      expect(result.content).toEqual([{ type: "text", text: "Recorded, all done." }]);
      expect(asked).toEqual([expect.stringContaining("Allow record(")]);
      expect(readFileSync(countFile, "utf8").trim().split("\n")).toHaveLength(1);
    } finally {
      await client.close();
    }
  }, 30_000);
});
