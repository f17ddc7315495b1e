import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { DataBlock } from "../../../src/message/index.js";
import { ToolError } from "../../../src/tool/index.js";
import { McpClient, McpError, type McpHttpConfig } from "../../../src/tool/mcp/index.js";
import { runTool, textOfChunks, toolNamed } from "./helpers.js";
import { API_KEY, startMcpHttpServer, type TestMcpHttpServer } from "./http-server.js";

const headers = { "x-api-key": API_KEY };

describe.each(["http", "sse"] as const)(
  "McpClient over %s against the SDK's own server classes",
  (transport) => {
    let server: TestMcpHttpServer;
    let client: McpClient;
    const config = (): McpHttpConfig => ({
      name: `remote-${transport}`,
      transport,
      url: transport === "http" ? server.mcpUrl : server.sseUrl,
      headers,
    });

    beforeAll(async () => {
      server = await startMcpHttpServer();
      client = new McpClient(config());
    });
    afterAll(async () => {
      await client.close();
      await server.stop();
    });

    it("lists and calls tools, sending the configured headers", async () => {
      const tools = await client.tools();
      const add = toolNamed(tools, `mcp__remote-${transport}__add`);
      expect(add.readOnly).toBe(true);
      expect(textOfChunks(await runTool(add, { a: 2, b: 3 }))).toBe("5");
      expect(textOfChunks(await runTool(toolNamed(tools, `mcp__remote-${transport}__whoami`), {}))).toBe(
        API_KEY,
      );
    });

    it("streams progress with the server's messages", async () => {
      const steps = toolNamed(await client.tools(), `mcp__remote-${transport}__steps`);
      const chunks = await runTool(steps, { steps: 2 });
      expect(chunks.slice(0, 2)).toEqual(["[progress 1/2 step 1]\n", "[progress 2/2 step 2]\n"]);
      expect(textOfChunks(chunks.slice(2))).toBe("done");
    });

    it("turns audio and embedded blobs into data blocks", async () => {
      const audio = toolNamed(await client.tools(), `mcp__remote-${transport}__audio`);
      const blocks = (await runTool(audio, {})) as DataBlock[];
      expect(blocks.map((block) => block.source)).toEqual([
        { type: "base64", mediaType: "audio/wav", data: Buffer.from("RIFF....WAVE").toString("base64") },
        { type: "base64", mediaType: "application/octet-stream", data: "AQID" },
      ]);
      expect(blocks[1]?.name).toBe("mem://blob");
    });

    it("an isError result is a ToolError", async () => {
      const fail = toolNamed(await client.tools(), `mcp__remote-${transport}__fail`);
      const error = await runTool(fail, {}).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(ToolError);
      expect(error).toMatchObject({
        message: "the disk is full",
        output: [{ type: "text", text: "the disk is full" }],
      });
    });

    it("reaches resources and prompts", async () => {
      expect((await client.listResources()).map((resource) => resource.uri)).toEqual(["mem://readme"]);
      expect(await client.readResource("mem://readme")).toEqual([
        expect.objectContaining({ text: "read me first" }),
      ]);
      const { messages } = await client.getPrompt("greet", { who: "Ada" });
      expect(messages[0]).toMatchObject({
        role: "user",
        content: [{ type: "text", text: "Say hello to Ada" }],
      });
    });

    it("a wrong header is a clear connection error", async () => {
      const refused = new McpClient({ ...config(), name: "refused", headers: { "x-api-key": "wrong" } });
      await expect(refused.connect()).rejects.toThrow(
        /could not connect to MCP server "refused" \((http|sse): http:\/\/127\.0\.0\.1/,
      );
      await refused.close();
    });
  },
);

describe("a Streamable HTTP server that loses sessions or restarts", () => {
  it("resends after a 404 for an unknown session, and reconnects on the call after a restart", async () => {
    let server = await startMcpHttpServer();
    const client = new McpClient({ name: "restarting", transport: "http", url: server.mcpUrl, headers });
    try {
      const add = toolNamed(await client.tools(), "mcp__restarting__add");
      expect(textOfChunks(await runTool(add, { a: 1, b: 1 }))).toBe("2");

      await server.forgetSessions();
      expect(textOfChunks(await runTool(add, { a: 2, b: 2 }))).toBe("4");

      await server.stop();
      const down = await runTool(add, { a: 3, b: 3 }).catch((e: unknown) => e);
      expect(down).toBeInstanceOf(McpError);
      expect(down).toMatchObject({ info: { type: "connection", source: "mcp:restarting" } });
      expect((down as McpError).message).toMatch(
        /MCP server "restarting" \(http: http:\/\/127\.0\.0\.1:\d+\/mcp\)/,
      );

      server = await startMcpHttpServer(server.port);
      expect(textOfChunks(await runTool(add, { a: 4, b: 4 }))).toBe("8");
    } finally {
      await client.close();
      await server.stop().catch(() => undefined);
    }
  });
});
