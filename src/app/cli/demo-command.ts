import { resolve } from "node:path";
import type { ChatModel } from "../../model/core.js";
import { demoAgentConfig } from "../demo/demo-agent.js";
import { DEMO_KNOWLEDGE_BASE, seedDemoKnowledge } from "../demo/demo-knowledge.js";
import type { ServiceConfig } from "../server/config/service-config.js";
import { LOCAL_USER } from "../server/http/auth.js";
import { serveCommand } from "./serve-command.js";

export interface DemoOptions {
  port?: number;
  /** A model spec (`openai:gpt-4o-mini`) or a ChatModel; default the scripted demo model. */
  model?: string | ChatModel;
  /** Where the sessions' workspaces live (default .agentscope/demo). */
  workspace?: string;
  store?: string;
  out: NodeJS.WritableStream;
}

/**
 * `agentscope demo`: the service with the demo agent on the embedded store; prints the console URL.
 * Each session works in its own workspace (seeded with two files), contained like any service's;
 * the agent has long-term memory and the local user a sample knowledge base (offline "hash"
 * embeddings: no API key), so every panel of the console has something in it.
 */
export async function demoCommand(options: DemoOptions) {
  const dataDir = resolve(options.workspace ?? ".agentscope/demo");
  const config: ServiceConfig = {
    agents: [options.model ? demoAgentConfig(dataDir, options.model) : demoAgentConfig(dataDir)],
    store: options.store ?? "sqlite:.agentscope/state.db",
    workspaces: { dataDir },
    memory: { embedding: "hash" },
    knowledge: { embedding: "hash" },
  };
  const model =
    typeof options.model === "string" ? options.model : options.model ? "the given model" : undefined;
  options.out.write(
    model
      ? `Demo agent on ${model}; workspaces under ${dataDir}\n`
      : `Demo agent on the scripted model (pass --model openai:gpt-4o-mini for a real one); workspaces under ${dataDir}\n`,
  );
  const serve: Parameters<typeof serveCommand>[0] = { config, out: options.out };
  if (options.port !== undefined) serve.port = options.port;
  const server = await serveCommand(serve, (server) => `Open the console: ${server.url}/\n`);
  // The console signs in as the local user when the server has no tokens: that user gets the sample.
  if (server.knowledge && (await seedDemoKnowledge(server.knowledge, LOCAL_USER)))
    options.out.write(`Sample knowledge base "${DEMO_KNOWLEDGE_BASE}" created (see the Knowledge panel)\n`);
  return server;
}
