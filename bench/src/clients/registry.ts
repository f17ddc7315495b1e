/** Each client by a short name, loaded on demand so a process imports only the client it runs. */
import type { ClientFactory } from "./client.js";

export const CLIENT_MODULES: Record<string, () => Promise<ClientFactory>> = {
  raw: async () => (await import("./raw-fetch.js")).rawFetchClient,
  agentscope: async () => (await import("./agentscope.js")).agentscopeClient,
  "agentscope-node": async () => (await import("./agentscope-node.js")).agentscopeNodeClient,
  "agentscope-fetch": async () => (await import("./agentscope-node.js")).agentscopeFetchClient,
  "raw-http": async () => (await import("./raw-node-http.js")).rawNodeHttpClient,
  openai: async () => (await import("./openai-sdk.js")).openaiSdkClient,
  "ai-sdk": async () => (await import("./ai-sdk.js")).aiSdkClient,
  agents: async () => (await import("./openai-agents.js")).openaiAgentsClient,
};

export async function loadClientFactory(name: string): Promise<ClientFactory> {
  const load = CLIENT_MODULES[name];
  if (!load) throw new Error(`no client "${name}" (${Object.keys(CLIENT_MODULES).join(", ")})`);
  return load();
}
