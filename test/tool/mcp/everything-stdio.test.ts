import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { DataBlock } from "../../../src/message/index.js";
import { ToolError, ToolInputError } from "../../../src/tool/index.js";
import { McpClient, McpError, type McpTool } from "../../../src/tool/mcp/index.js";
import { everythingConfig, runTool, textOfChunks, toolNamed } from "./helpers.js";

describe("McpClient over stdio with @modelcontextprotocol/server-everything", () => {
  const client = new McpClient({ ...everythingConfig(), env: { AGENTSCOPE_MCP_TEST: "from-config" } });
  let tools: McpTool[];

  beforeAll(async () => {
    await client.connect();
    tools = await client.tools();
  });
  afterAll(() => client.close());

  it("names tools mcp__<server>__<tool> and takes read-only from the annotations", () => {
    const names = tools.map((tool) => tool.name);
    expect(names).toEqual(expect.arrayContaining(["mcp__everything__echo", "mcp__everything__get-sum"]));
    const echo = toolNamed(tools, "mcp__everything__echo");
    expect(echo.readOnly).toBe(true);
    expect(echo.concurrencySafe).toBe(true);
    const toggle = toolNamed(tools, "mcp__everything__toggle-simulated-logging");
    expect(toggle.readOnly).toBe(false);
    expect(toggle.concurrencySafe).toBe(false);
    expect((echo as McpTool).mcp).toMatchObject({ server: "everything", tool: "echo" });
  });

  it("passes the server's input schema on without $schema", () => {
    const sum = toolNamed(tools, "mcp__everything__get-sum");
    expect(sum.inputSchema).not.toHaveProperty("$schema");
    expect(sum.inputSchema).toMatchObject({ type: "object", required: ["a", "b"] });
  });

  it("echo returns the server's text", async () => {
    const chunks = await runTool(toolNamed(tools, "mcp__everything__echo"), { message: "hello" });
    expect(textOfChunks(chunks)).toBe("Echo: hello");
  });

  it("starts the server with the configured environment on top of a safe default", async () => {
    const text = textOfChunks(await runTool(toolNamed(tools, "mcp__everything__get-env"), {}));
    expect(JSON.parse(text)).toMatchObject({ AGENTSCOPE_MCP_TEST: "from-config", PATH: expect.any(String) });
  });

  it("get-sum adds the numbers", async () => {
    const chunks = await runTool(toolNamed(tools, "mcp__everything__get-sum"), { a: 2, b: 40 });
    expect(textOfChunks(chunks)).toContain("42");
  });

  it("rejects arguments that break the server's schema before calling it", () => {
    const sum = toolNamed(tools, "mcp__everything__get-sum");
    expect(() => sum.parse({ a: "two", b: 3 })).toThrow(ToolInputError);
  });

  it("get-tiny-image becomes a base64 data block with its MIME type", async () => {
    const chunks = await runTool(toolNamed(tools, "mcp__everything__get-tiny-image"), {});
    const image = chunks.find(
      (chunk): chunk is DataBlock => typeof chunk !== "string" && chunk.type === "data",
    );
    expect(image?.source).toMatchObject({ type: "base64", mediaType: "image/png" });
    const data = image?.source.type === "base64" ? image.source.data : "";
    expect(Buffer.from(data, "base64").subarray(1, 4).toString()).toBe("PNG");
  });

  it("an embedded text resource becomes text", async () => {
    const chunks = await runTool(toolNamed(tools, "mcp__everything__get-resource-reference"), {});
    expect(textOfChunks(chunks)).toContain("This is a plaintext resource");
  });

  it("streams progress lines while a long-running tool works, then its result", async () => {
    const long = toolNamed(tools, "mcp__everything__trigger-long-running-operation");
    const chunks = await runTool(long, { duration: 0.3, steps: 3 });
    // The SDK may drop the last notification when the response follows it at once, so 3/3 is optional.
    const progress = chunks.filter((chunk) => typeof chunk === "string");
    expect(progress.slice(0, 2)).toEqual(["[progress 1/3]\n", "[progress 2/3]\n"]);
    expect(chunks.indexOf("[progress 2/3]\n")).toBe(1);
    expect(textOfChunks(chunks.slice(-1))).toContain("Long running operation completed");
  });

  it("an isError result is thrown as a ToolError carrying the server's message", async () => {
    const sum = toolNamed(tools, "mcp__everything__get-sum");
    const failure = runTool({ ...sum, parse: (value: unknown) => value }, { a: "two" });
    await expect(failure).rejects.toThrow(ToolError);
    await expect(failure).rejects.toThrow(/Input validation error/);
    const error = (await failure.catch((e: unknown) => e)) as ToolError;
    expect(error.output).toEqual([expect.objectContaining({ type: "text" })]);
  });

  it("an aborted call rejects at once and leaves the connection usable", async () => {
    const controller = new AbortController();
    const long = toolNamed(tools, "mcp__everything__trigger-long-running-operation");
    const started = Date.now();
    const call = runTool(long, { duration: 5, steps: 5 }, controller.signal);
    setTimeout(() => controller.abort(new Error("stop")), 100);
    await expect(call).rejects.toThrow();
    expect(Date.now() - started).toBeLessThan(4000); // well before the 5 s operation ends
    expect(textOfChunks(await runTool(toolNamed(tools, "mcp__everything__echo"), { message: "ok" }))).toBe(
      "Echo: ok",
    );
  });

  it("lists and reads resources", async () => {
    const resources = await client.listResources();
    expect(resources.length).toBeGreaterThan(0);
    const architecture = resources.find((resource) => resource.name === "architecture.md");
    expect(architecture).toBeDefined();
    const blocks = await client.readResource(architecture?.uri ?? "");
    expect(blocks[0]).toMatchObject({ type: "text" });
  });

  it("lists prompts and fills one in as Msgs", async () => {
    const prompts = await client.listPrompts();
    expect(prompts.map((prompt) => prompt.name)).toContain("args-prompt");
    const { messages } = await client.getPrompt("args-prompt", { city: "Paris" });
    expect(messages[0]?.role).toBe("user");
    expect(messages[0]?.content[0]).toMatchObject({ type: "text", text: expect.stringContaining("Paris") });
  });

  it("a JSON-RPC error from a live server is an upstream McpError and keeps the connection", async () => {
    const failure = client.getPrompt("no-such-prompt");
    await expect(failure).rejects.toThrow(McpError);
    await expect(failure).rejects.toMatchObject({ info: { type: "upstream", source: "mcp:everything" } });
    expect(client.connected).toBe(true);
  });
});
