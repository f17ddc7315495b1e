import { randomUUID } from "node:crypto";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { SSEServerTransport } from "@modelcontextprotocol/sdk/server/sse.js";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import { z } from "zod";

export const API_KEY = "secret-key";

/** A small MCP server built with the SDK's own classes: tools, a resource and a prompt. */
function buildServer(): McpServer {
  const server = new McpServer({ name: "test-http", version: "1.0.0" });
  server.registerTool(
    "add",
    {
      description: "Adds two numbers",
      inputSchema: { a: z.number(), b: z.number() },
      annotations: { readOnlyHint: true },
    },
    async ({ a, b }) => ({ content: [{ type: "text", text: String(a + b) }] }),
  );
  server.registerTool(
    "whoami",
    { description: "Echoes the x-api-key header it received", inputSchema: {} },
    async (_args, extra) => ({
      content: [{ type: "text", text: String(extra.requestInfo?.headers["x-api-key"]) }],
    }),
  );
  server.registerTool(
    "steps",
    { description: "Reports progress, then finishes", inputSchema: { steps: z.number() } },
    async ({ steps }, extra) => {
      const token = extra._meta?.progressToken;
      for (let step = 1; step <= steps; step += 1) {
        await new Promise((resolve) => setTimeout(resolve, 30));
        if (token !== undefined) {
          await extra.sendNotification({
            method: "notifications/progress",
            params: { progressToken: token, progress: step, total: steps, message: `step ${step}` },
          });
        }
      }
      await new Promise((resolve) => setTimeout(resolve, 30));
      return { content: [{ type: "text", text: "done" }] };
    },
  );
  server.registerTool("audio", { description: "Returns a short audio clip", inputSchema: {} }, async () => ({
    content: [
      { type: "audio", data: Buffer.from("RIFF....WAVE").toString("base64"), mimeType: "audio/wav" },
      {
        type: "resource",
        resource: {
          uri: "mem://blob",
          mimeType: "application/octet-stream",
          blob: Buffer.from([1, 2, 3]).toString("base64"),
        },
      },
    ],
  }));
  server.registerTool("fail", { description: "Always fails", inputSchema: {} }, async () => ({
    content: [{ type: "text", text: "the disk is full" }],
    isError: true,
  }));
  server.registerResource("readme", "mem://readme", { mimeType: "text/plain" }, async (uri) => ({
    contents: [{ uri: uri.href, mimeType: "text/plain", text: "read me first" }],
  }));
  server.registerPrompt("greet", { argsSchema: { who: z.string() } }, ({ who }) => ({
    messages: [{ role: "user", content: { type: "text", text: `Say hello to ${who}` } }],
  }));
  return server;
}

export interface TestMcpHttpServer {
  /** Streamable HTTP endpoint. */
  mcpUrl: string;
  /** Legacy HTTP+SSE endpoint. */
  sseUrl: string;
  port: number;
  /** Drops every session, as a server that expired them would: their next request gets 404. */
  forgetSessions(): Promise<void>;
  stop(): Promise<void>;
}

/** Starts the server on 127.0.0.1 (port 0 = any free port). Requests without the API key get 401. */
export async function startMcpHttpServer(port = 0): Promise<TestMcpHttpServer> {
  const streamable = new Map<string, StreamableHTTPServerTransport>();
  const sse = new Map<string, SSEServerTransport>();

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    if (req.headers["x-api-key"] !== API_KEY) {
      res.writeHead(401).end("missing or wrong x-api-key");
      return;
    }
    const url = new URL(req.url ?? "/", "http://127.0.0.1");
    if (url.pathname === "/mcp") {
      const sessionId = req.headers["mcp-session-id"];
      let transport = typeof sessionId === "string" ? streamable.get(sessionId) : undefined;
      if (!transport) {
        if (sessionId !== undefined) {
          res.writeHead(404).end("unknown session");
          return;
        }
        const created = new StreamableHTTPServerTransport({
          sessionIdGenerator: () => randomUUID(),
          onsessioninitialized: (id) => {
            streamable.set(id, created);
          },
        });
        transport = created;
        await buildServer().connect(created);
      }
      await transport.handleRequest(req, res);
      return;
    }
    if (url.pathname === "/sse" && req.method === "GET") {
      const transport = new SSEServerTransport("/messages", res);
      sse.set(transport.sessionId, transport);
      await buildServer().connect(transport);
      return;
    }
    if (url.pathname === "/messages" && req.method === "POST") {
      const transport = sse.get(url.searchParams.get("sessionId") ?? "");
      if (!transport) {
        res.writeHead(404).end("unknown session");
        return;
      }
      await transport.handlePostMessage(req, res);
      return;
    }
    res.writeHead(404).end();
  }

  const server: Server = createServer((req, res) => {
    handle(req, res).catch(() => {
      if (!res.headersSent) res.writeHead(500);
      res.end();
    });
  });
  await new Promise<void>((resolve) => server.listen(port, "127.0.0.1", resolve));
  const actual = (server.address() as AddressInfo).port;
  return {
    port: actual,
    mcpUrl: `http://127.0.0.1:${actual}/mcp`,
    sseUrl: `http://127.0.0.1:${actual}/sse`,
    async forgetSessions() {
      const transports = [...streamable.values(), ...sse.values()];
      streamable.clear();
      sse.clear();
      await Promise.allSettled(transports.map((transport) => transport.close()));
    },
    async stop() {
      await Promise.allSettled(
        [...streamable.values(), ...sse.values()].map((transport) => transport.close()),
      );
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
