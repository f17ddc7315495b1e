import { type Toolkit, ToolNameCollisionError } from "../toolkit.js";
import type { McpClient } from "./client.js";
import type { McpTool } from "./tool.js";

export interface RegisterMcpOptions {
  /** Tool group for the server's tools; created when missing (default: the basic group). */
  group?: string;
  /** Description of a group created here (default names the server). */
  groupDescription?: string;
  /** Whether a group created here starts active (default true). */
  active?: boolean;
}

/**
 * Connects, registers the server's tools on the toolkit, and attaches the client so that
 * `toolkit.close()` (called when the agent is disposed) closes it. Nothing is registered when a
 * name is taken.
 */
export async function registerMcpClient(
  toolkit: Toolkit,
  client: McpClient,
  options: RegisterMcpOptions = {},
): Promise<McpTool[]> {
  const tools = await client.tools();
  const taken = tools.find((tool) => toolkit.get(tool.name) !== undefined);
  if (taken) throw new ToolNameCollisionError(taken.name);
  const { group } = options;
  if (group !== undefined && !toolkit.listGroups().some((existing) => existing.name === group)) {
    toolkit.createGroup({
      name: group,
      description: options.groupDescription ?? `tools of MCP server "${client.name}"`,
      active: options.active ?? true,
    });
  }
  for (const tool of tools) toolkit.register(tool, group === undefined ? {} : { group });
  toolkit.attach(client);
  return tools;
}
