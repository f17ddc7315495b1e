import type { AgentCard } from "@a2a-js/sdk";
import type { Agent } from "../../agent/index.js";

/** The A2A protocol versions the endpoint serves over JSON-RPC: v1.0, and v0.3 for older clients. */
export const A2A_VERSIONS = ["1.0", "0.3"] as const;

/**
 * The agent card of one agent served at `url` (its JSON-RPC endpoint): its skills are its tools
 * (name and description), or one skill for the agent itself when it has none.
 */
export function agentCardOf(agent: Agent, url: string, description?: string): AgentCard {
  const tools = agent.toolkit.schemas();
  const skills = (
    tools.length > 0 ? tools : [{ name: agent.name, description: description ?? agent.name }]
  ).map((tool) => ({
    id: tool.name,
    name: tool.name,
    description: tool.description ?? "",
    tags: [],
    examples: [],
    inputModes: [],
    outputModes: [],
    securityRequirements: [],
  }));
  return {
    name: agent.name,
    description: description ?? `The ${agent.name} agent`,
    supportedInterfaces: A2A_VERSIONS.map((protocolVersion) => ({
      url,
      protocolBinding: "JSONRPC",
      tenant: "",
      protocolVersion,
    })),
    provider: undefined,
    version: "1.0.0",
    capabilities: { streaming: true, pushNotifications: false, extensions: [] },
    securitySchemes: {},
    securityRequirements: [],
    defaultInputModes: ["text/plain", "application/json"],
    defaultOutputModes: ["text/plain"],
    skills,
    signatures: [],
  };
}
