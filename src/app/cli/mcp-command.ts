import { parseArgs } from "node:util";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { agentMcpServer } from "../bridges/mcp/index.js";
import { LOCAL_USER } from "../server/http/auth.js";
import { chatRuntime } from "./chat-runtime.js";
import { findConfig } from "./find-config.js";

export const MCP_HELP = `Usage: agentscope mcp [--config file] [--store url]

Serve the config's agents over MCP on stdin/stdout, for desktop hosts that start their servers as a
command (e.g. "command": "npx", "args": ["agentscope", "mcp"]). Each agent is a tool: prompt in,
final answer out, the reply streamed as progress notifications; a tool call that asks is confirmed
through the host's elicitation when it supports that. Sessions work in workspaces as under serve.
Nothing but MCP is written to stdout; notes go to stderr.

Options:
  --config <file>   agents config (default agentscope.config.{ts,mjs,js,json})
  --store <url>     keep the sessions in this store (default memory:)
`;

/** `agentscope mcp`: the MCP server of /v1/mcp, over stdio for one local user; ends when stdin closes. */
export async function mcpCommand(args: string[]): Promise<void> {
  const { values } = parseArgs({
    args,
    options: { config: { type: "string" }, store: { type: "string" }, help: { type: "boolean", short: "h" } },
  });
  if (values.help) return void process.stdout.write(MCP_HELP);
  const local = await chatRuntime(await findConfig(values.config), values.store ?? "memory:");
  for (const warning of local.warnings) process.stderr.write(`warning: ${warning}\n`);
  process.stderr.write(`${local.containment}\n`);
  const server = agentMcpServer(local.runtime, LOCAL_USER);
  const transport = new StdioServerTransport();
  const closed = new Promise<void>((resolve) => {
    transport.onclose = () => resolve();
    process.stdin.once("end", () => resolve());
  });
  await server.connect(transport);
  await closed;
  await local.close();
}
