import { randomUUID } from "node:crypto";
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
import { CallToolRequestSchema, ListToolsRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import { Hono } from "hono";
import type { ServiceVariables } from "../../server/http/auth.js";
import { requestHeader } from "../../server/http/request-header.js";
import { toHttpError } from "../../server/http-error.js";
import type { ServiceRuntime } from "../../server/runtime/service-runtime.js";
import { agentTools, callAgentTool } from "./agent-tools.js";

/** The MCP server's name in `initialize`. */
export const MCP_SERVER_NAME = "agentscope";

/** Open MCP sessions per user; opening one more closes that user's oldest (hosts that never DELETE). */
export const MAX_MCP_SESSIONS_PER_USER = 16;

interface Connection {
  user: string;
  transport: WebStandardStreamableHTTPServerTransport;
}

/**
 * One MCP server for one connection of `user`: the agents as tools, each call a reply in one of the
 * user's sessions. Exported for the stdio command, which serves one connection the same way.
 */
export function agentMcpServer(runtime: ServiceRuntime, user: string, version = "0.0.0"): Server {
  const server = new Server({ name: MCP_SERVER_NAME, version }, { capabilities: { tools: {} } });
  server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: agentTools(runtime) }));
  server.setRequestHandler(CallToolRequestSchema, async (request, extra) => {
    const token = request.params._meta?.progressToken;
    let progress = 0;
    try {
      return await callAgentTool(runtime, request.params.name, request.params.arguments, {
        user,
        signal: extra.signal,
        server,
        ...(token !== undefined
          ? {
              progress: (message: string) =>
                extra.sendNotification({
                  method: "notifications/progress",
                  params: { progressToken: token, progress: ++progress, message },
                }),
            }
          : {}),
      });
    } catch (error) {
      return { content: [{ type: "text", text: toHttpError(error).message }], isError: true };
    }
  });
  return server;
}

/**
 * `/v1/mcp`: the service as an MCP server over Streamable HTTP, under the service's auth, Host and
 * Origin rules. Each MCP session belongs to the user who opened it (another user's `mcp-session-id`
 * is a 404) and lives on the replica that opened it, so a confirmation can be elicited mid-call;
 * a user keeps at most MAX_MCP_SESSIONS_PER_USER open.
 */
export function mcpRoutes(runtime: ServiceRuntime): Hono<{ Variables: ServiceVariables }> {
  const app = new Hono<{ Variables: ServiceVariables }>();
  const connections = new Map<string, Connection>();
  app.all("/v1/mcp", async (c) => {
    const user = c.get("user");
    const sessionId = requestHeader(c, "mcp-session-id");
    if (sessionId !== undefined) {
      const connection = connections.get(sessionId);
      if (!connection || connection.user !== user) {
        return c.json(
          {
            jsonrpc: "2.0",
            error: { code: -32001, message: `MCP session "${sessionId}" not found` },
            id: null,
          },
          404,
        );
      }
      return connection.transport.handleRequest(c.req.raw);
    }
    const transport = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      onsessioninitialized: (id) => {
        connections.set(id, { user, transport });
        const mine = [...connections.values()].filter((open) => open.user === user);
        if (mine.length > MAX_MCP_SESSIONS_PER_USER) void mine[0]!.transport.close();
      },
      onsessionclosed: (id) => void connections.delete(id),
    });
    transport.onclose = () => {
      if (transport.sessionId) connections.delete(transport.sessionId);
    };
    await agentMcpServer(runtime, user).connect(transport);
    return transport.handleRequest(c.req.raw);
  });
  return app;
}
