import { type RunningServer, startServer } from "../../../src/app/server/start-server.js";
import { ScriptedModel } from "../../../src/testing/index.js";
import { conversationModel, recordTool } from "../fixtures/agents.js";

/**
 * A service whose `main` agent calls its `research` sub-agent once, then answers "main done"; the
 * sub-agent calls `record` (which asks first). Tokens: `tok-a` is alice, `tok-b` is bob.
 * `calls.count` says how often `record` ran.
 */
export async function startSubagentServer(
  store: string,
): Promise<{ server: RunningServer; calls: { count: number } }> {
  const calls = { count: 0 };
  const server = await startServer({
    config: {
      agents: [
        {
          name: "main",
          model: new ScriptedModel([
            { toolCalls: [{ name: "research", input: { prompt: "record a note" } }] },
            { text: "main done" },
          ]),
          subagents: [{ agent: "researcher", name: "research", description: "Records notes" }],
        },
        { name: "researcher", model: conversationModel(), tools: [recordTool(undefined, calls)] },
      ],
    },
    store,
    port: 0,
    tokensEnv: "tok-a:alice,tok-b:bob",
  });
  return { server, calls };
}

/**
 * A service whose agent `name` spawns a `helper` sub-agent in the background, exposed to the user,
 * then says "Started it." ("Still on it." on the next reply, "The helper is done." on its outcome);
 * the helper calls `record` (which asks first). Tokens: `tok-a` is alice, `tok-b` is bob.
 */
export async function startSpawnServer(
  store: string,
  name: string,
): Promise<{ server: RunningServer; calls: { count: number } }> {
  const calls = { count: 0 };
  const spawn = { template: "helper", prompt: "record a note", background: true, expose_to_user: true };
  const server = await startServer({
    config: {
      agents: [
        {
          name,
          model: new ScriptedModel([
            { toolCalls: [{ name: "agent_spawn", input: spawn }] },
            { text: "Started it." },
            { text: "Still on it." },
            { text: "The helper is done." },
          ]),
          spawn: { templates: [{ name: "helper", description: "Records notes", agent: "helper" }] },
        },
        { name: "helper", model: conversationModel(), tools: [recordTool(undefined, calls)] },
      ],
    },
    store,
    port: 0,
    tokensEnv: "tok-a:alice,tok-b:bob",
  });
  return { server, calls };
}
