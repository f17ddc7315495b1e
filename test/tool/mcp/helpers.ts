import { createRequire } from "node:module";
import type { Tool } from "../../../src/tool/index.js";
import type { McpClient, McpStdioConfig } from "../../../src/tool/mcp/index.js";

const require = createRequire(import.meta.url);

/** The stdio entry of an MCP server package from npm (resolved from its package.json `bin`). */
export function serverEntry(pkg: string): string {
  return require.resolve(`${pkg}/dist/index.js`);
}

export function everythingConfig(name = "everything"): McpStdioConfig {
  return {
    name,
    transport: "stdio",
    command: process.execPath,
    args: [serverEntry("@modelcontextprotocol/server-everything"), "stdio"],
  };
}

export function toolNamed(tools: Tool[], name: string): Tool {
  const tool = tools.find((candidate) => candidate.name === name);
  if (!tool) throw new Error(`no tool ${name} among ${tools.map((t) => t.name).join(", ")}`);
  return tool;
}

/** Kills the stdio server the client runs and waits until the client has noticed. */
export async function killServer(client: McpClient): Promise<number> {
  const pid = client.pid;
  if (pid === undefined) throw new Error("the client has no server process");
  process.kill(pid, "SIGKILL");
  const deadline = Date.now() + 5000;
  while (client.connected && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
  if (client.connected) throw new Error("the client did not notice that its server died");
  return pid;
}

export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

export { runTool, textOfChunks, toolContext } from "../helpers.js";
