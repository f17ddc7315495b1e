import { resolve } from "node:path";
import { demoAgentConfig, prepareDemoWorkspace } from "../demo/demo-agent.js";
import type { ServiceConfig } from "../server/config/service-config.js";
import { serveCommand } from "./serve-command.js";

export interface DemoOptions {
  port?: number;
  model?: string;
  workspace?: string;
  store?: string;
  out: NodeJS.WritableStream;
}

/** `agentscope demo`: the service with the demo agent on the embedded store; prints the console URL. */
export async function demoCommand(options: DemoOptions) {
  const workspace = resolve(options.workspace ?? ".agentscope/demo-workspace");
  prepareDemoWorkspace(workspace);
  const config: ServiceConfig = {
    agents: [options.model ? demoAgentConfig(workspace, options.model) : demoAgentConfig(workspace)],
    store: options.store ?? "sqlite:.agentscope/state.db",
  };
  options.out.write(
    options.model
      ? `Demo agent on ${options.model}; workspace ${workspace}\n`
      : `Demo agent on the scripted model (pass --model openai:gpt-4o-mini for a real one); workspace ${workspace}\n`,
  );
  const serve: Parameters<typeof serveCommand>[0] = { config, out: options.out };
  if (options.port !== undefined) serve.port = options.port;
  return serveCommand(serve, (server) => `Open the console: ${server.url}/\n`);
}
