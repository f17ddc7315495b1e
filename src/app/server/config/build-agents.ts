import type { ChatModel } from "../../../model/core.js";
import {
  type ApproverOptions,
  checkApproverOptions,
  type PermissionContext,
  permissionContextFrom,
} from "../../../permission/index.js";
import { builtinTools } from "../../../tool/builtin/index.js";
import { type Tool, Toolkit } from "../../../tool/index.js";
import { McpClient, registerMcpClient } from "../../../tool/mcp/index.js";
import type { ServiceAgentOptions } from "../runtime/service-runtime.js";
import { resolveModel } from "./model-spec.js";
import { type AgentConfig, ConfigError } from "./service-config.js";

function permissionOf(config: AgentConfig): Partial<PermissionContext> | undefined {
  if (!config.permission) return undefined;
  try {
    return permissionContextFrom(config.permission, "config");
  } catch (error) {
    throw new ConfigError(`agents "${config.name}": ${(error as Error).message}`);
  }
}

function approversOf(config: AgentConfig): ApproverOptions {
  try {
    return checkApproverOptions({ policies: config.approvers ?? [] });
  } catch (error) {
    throw new ConfigError(`agents "${config.name}": ${(error as Error).message}`);
  }
}

/**
 * Agent options from config entries: model resolved, built-in tools by name, MCP servers connected
 * and registered (`mcp__<server>__<tool>`), permission rules parsed. A failure names the agent.
 */
export async function buildAgents(configs: AgentConfig[]): Promise<ServiceAgentOptions[]> {
  const built: ServiceAgentOptions[] = [];
  for (const config of configs) {
    const builtins = new Map(builtinTools().map((tool) => [tool.name, tool] as const));
    const model: ChatModel = await resolveModel(config.model, config.name);
    const tools = (config.tools ?? []).map((tool) =>
      typeof tool === "string" ? builtins.get(tool)! : (tool as Tool),
    );
    const toolkit = new Toolkit(tools);
    for (const server of config.mcpServers ?? []) {
      try {
        await registerMcpClient(toolkit, new McpClient(server));
      } catch (error) {
        await toolkit.close();
        throw new ConfigError(
          `agents "${config.name}".mcpServers "${server.name}": ${(error as Error).message}`,
        );
      }
    }
    const options: ServiceAgentOptions = { name: config.name, model, toolkit };
    if (config.systemPrompt !== undefined) options.systemPrompt = config.systemPrompt;
    if (config.maxIters !== undefined) options.maxIters = config.maxIters;
    const permission = permissionOf(config);
    if (permission) options.permission = permission;
    if (config.approvers) options.approvers = approversOf(config);
    if (config.onPauseChange) options.onPauseChange = config.onPauseChange;
    built.push(options);
  }
  return built;
}
