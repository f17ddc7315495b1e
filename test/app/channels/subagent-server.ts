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
