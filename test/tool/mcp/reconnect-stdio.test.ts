import { afterAll, describe, expect, it } from "vitest";
import { McpClient, McpError } from "../../../src/tool/mcp/index.js";
import { everythingConfig, isAlive, killServer, runTool, textOfChunks, toolNamed } from "./helpers.js";

describe("a stdio MCP server that dies", () => {
  const client = new McpClient(everythingConfig());
  afterAll(() => client.close());

  it("is started again on the next call after its process is killed", async () => {
    const tools = await client.tools();
    const echo = toolNamed(tools, "mcp__everything__echo");
    const killed = await killServer(client);
    expect(textOfChunks(await runTool(echo, { message: "again" }))).toBe("Echo: again");
    expect(client.pid).toBeDefined();
    expect(client.pid).not.toBe(killed);
  });

  it("fails the call in flight with a connection error, and the next call reconnects", async () => {
    const tools = await client.tools();
    const long = toolNamed(tools, "mcp__everything__trigger-long-running-operation");
    const outcome = runTool(long, { duration: 10, steps: 20 }).then(
      () => undefined,
      (e: unknown) => e,
    );
    await new Promise((resolve) => setTimeout(resolve, 700));
    await killServer(client);
    const error = await outcome;
    expect(error).toBeInstanceOf(McpError);
    expect((error as McpError).info.type).toBe("connection");
    expect((error as McpError).message).toMatch(
      /lost the connection to MCP server "everything".*reconnected on the next call/,
    );
    const echo = toolNamed(tools, "mcp__everything__echo");
    expect(textOfChunks(await runTool(echo, { message: "back" }))).toBe("Echo: back");
  });

  it("close() ends the server process and later calls say the client is closed", async () => {
    await client.connect();
    const pid = client.pid as number;
    await client.close();
    await client.close();
    expect(isAlive(pid)).toBe(false);
    await expect(client.listTools()).rejects.toThrow(/MCP client "everything" is closed/);
  });
});

describe("a stdio MCP server that cannot start", () => {
  it("fails with a connection error naming the server, the command and its stderr", async () => {
    const broken = new McpClient({
      name: "broken",
      transport: "stdio",
      command: process.execPath,
      args: ["-e", "process.stderr.write('missing API key'); process.exit(3)"],
    });
    const error = await broken.tools().then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(McpError);
    expect((error as McpError).info).toMatchObject({ type: "connection", source: "mcp:broken" });
    expect((error as McpError).message).toMatch(/could not connect to MCP server "broken" \(stdio: .*node/);
    expect((error as McpError).message).toContain("missing API key");
    await broken.close();
  });

  it("fails with a connection error when the command does not exist", async () => {
    const missing = new McpClient({
      name: "missing",
      transport: "stdio",
      command: "/nonexistent/mcp-server",
    });
    await expect(missing.connect()).rejects.toThrow(/could not connect to MCP server "missing".*ENOENT/);
    await missing.close();
  });
});

describe("McpClient config", () => {
  it("rejects a config that cannot work before starting anything", () => {
    expect(() => new McpClient({ name: "", transport: "stdio", command: "x" })).toThrow(/"name" must be/);
    expect(() => new McpClient({ name: "a", transport: "http", url: "not a url" })).toThrow(
      /"url" is not a valid URL/,
    );
    expect(() => new McpClient({ name: "a", transport: "ws" } as never)).toThrow(/"transport" must be/);
  });
});
