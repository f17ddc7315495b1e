import { describe, expect, it } from "vitest";
import { memoryBackend } from "../../src/app/server/backend/memory-backend.js";
import { buildAgents } from "../../src/app/server/config/build-agents.js";
import { wireMultiAgent } from "../../src/app/server/config/build-multiagent.js";
import { parseServiceConfig } from "../../src/app/server/config/service-config.js";
import { ServiceRuntime } from "../../src/app/server/runtime/service-runtime.js";
import { blocksOf, userMsg } from "../../src/message/index.js";
import { ScriptedModel } from "../../src/testing/index.js";

describe("service config: spawn templates", () => {
  it("an agent spawns a configured explorer template; a second spawn in the reply is over maxPerReply", async () => {
    const explorerModel = new ScriptedModel([{ text: "the repo has 3 files" }]);
    const parsed = parseServiceConfig({
      agents: [
        {
          name: "main",
          model: new ScriptedModel([
            {
              toolCalls: [
                { id: "a", name: "agent_spawn", input: { template: "explorer", prompt: "look around" } },
                { id: "b", name: "agent_spawn", input: { template: "explorer", prompt: "again" } },
              ],
            },
            { text: "main done" },
          ]),
          spawn: {
            templates: [
              {
                name: "explorer",
                description: "Reads the code",
                agent: "explorer",
                permission: { mode: "explore" },
              },
            ],
            limits: { maxPerReply: 1 },
          },
        },
        { name: "explorer", model: explorerModel },
      ],
    });
    const agents = await buildAgents(parsed.agents);
    wireMultiAgent(parsed.agents, parsed.teams, agents);
    const runtime = new ServiceRuntime({ backend: memoryBackend(), agents, heartbeatMs: 20 });
    try {
      const session = await runtime.createSession("local", { agent: "main" });
      await (await runtime.startReply("local", session.sessionId, [userMsg("explore")])).done;
      const reply = (await runtime.messages("local", session.sessionId)).at(-1)!;
      const results = blocksOf(reply, "tool_result");
      expect(results.find((r) => r.id === "a")).toMatchObject({
        state: "success",
        output: "the repo has 3 files",
      });
      expect(String(results.find((r) => r.id === "b")?.output)).toContain('limit "maxPerReply" reached');
      // The refused spawn never started the explorer: its model was called once.
      expect(explorerModel.calls).toHaveLength(1);
    } finally {
      await runtime.close();
    }
  });

  it("rejects a template naming an unknown agent, and bad limits, with the path", async () => {
    const ghost = parseServiceConfig({
      agents: [
        {
          name: "a",
          model: new ScriptedModel([]),
          spawn: { templates: [{ name: "t", description: "x", agent: "ghost" }] },
        },
      ],
    });
    const agents = await buildAgents(ghost.agents);
    expect(() => wireMultiAgent(ghost.agents, undefined, agents)).toThrow(
      /agents "a".spawn.templates\[0\].agent: no agent named "ghost"/,
    );
    expect(() =>
      parseServiceConfig({
        agents: [
          {
            name: "a",
            model: new ScriptedModel([]),
            spawn: { templates: [{ name: "t", description: "x", agent: "a" }], limits: { maxDepth: 0 } },
          },
        ],
      }),
    ).toThrow(/spawn\.limits\.maxDepth/);
  });
});
