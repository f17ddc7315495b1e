import { describe, expect, it } from "vitest";
import { createApp } from "../../../src/app/server/app.js";
import { memoryBackend } from "../../../src/app/server/backend/memory-backend.js";
import { buildAgents } from "../../../src/app/server/config/build-agents.js";
import { wireMultiAgent } from "../../../src/app/server/config/build-multiagent.js";
import { parseServiceConfig } from "../../../src/app/server/config/service-config.js";
import { ServiceRuntime } from "../../../src/app/server/runtime/service-runtime.js";
import { userMsg } from "../../../src/message/index.js";
import { ScriptedModel } from "../../../src/testing/index.js";

function config(extra: Record<string, unknown> = {}) {
  return parseServiceConfig({
    agents: [
      {
        name: "main",
        model: new ScriptedModel([
          { toolCalls: [{ name: "research", input: { prompt: "pugs?" } }] },
          { text: "main done" },
        ]),
        subagents: [{ agent: "researcher", name: "research", description: "Researches" }],
      },
      {
        name: "researcher",
        model: new ScriptedModel([{ text: "pugs are dogs" }, { text: "second answer" }]),
      },
      {
        name: "lead",
        model: new ScriptedModel([
          { toolCalls: [{ name: "team_assign", input: { member: "researcher", prompt: "go" } }] },
          { text: "team done" },
        ]),
      },
    ],
    teams: [
      { name: "pug-team", leader: "lead", members: [{ agent: "researcher", description: "finds facts" }] },
    ],
    ...extra,
  });
}

async function serviceOf(parsed: ReturnType<typeof config>) {
  const agents = await buildAgents(parsed.agents);
  wireMultiAgent(parsed.agents, parsed.teams, agents);
  return new ServiceRuntime({ backend: memoryBackend(), agents, heartbeatMs: 20 });
}

describe("service config: subagents and teams", () => {
  it("lists sub-agents and teams in /v1/agents, and a team runs like an agent", async () => {
    const runtime = await serviceOf(config());
    try {
      const app = createApp(runtime);
      const listed = (await (await app.request("/v1/agents")).json()) as { agents: unknown[] };
      expect(listed.agents).toEqual([
        { name: "main", subagents: ["researcher"] },
        { name: "researcher" },
        { name: "lead" },
        { name: "pug-team", members: ["researcher"] },
      ]);
      const session = await runtime.createSession("local", { agent: "pug-team" });
      const run = await runtime.startReply("local", session.sessionId, [userMsg("go team")]);
      await run.done;
      const messages = await runtime.messages("local", session.sessionId);
      const reply = messages.at(-1)!;
      expect(reply.name).toBe("pug-team");
      expect(reply.content.find((b) => b.type === "tool_result")).toMatchObject({ output: "pugs are dogs" });

      const main = await runtime.createSession("local", { agent: "main" });
      await (await runtime.startReply("local", main.sessionId, [userMsg("ask")])).done;
      const mainReply = (await runtime.messages("local", main.sessionId)).at(-1)!;
      expect(mainReply.content.find((b) => b.type === "tool_result")).toMatchObject({
        name: "research",
        output: "second answer",
      });
    } finally {
      await runtime.close();
    }
  });

  it("rejects unknown names and cycles with a clear error", async () => {
    const unknown = parseServiceConfig({
      agents: [
        { name: "a", model: new ScriptedModel([]), subagents: [{ agent: "ghost", description: "x" }] },
      ],
    });
    const agents = await buildAgents(unknown.agents);
    expect(() => wireMultiAgent(unknown.agents, undefined, agents)).toThrow(
      /agents "a".subagents\[0\]: no agent named "ghost"/,
    );

    const cyclic = parseServiceConfig({
      agents: [
        { name: "a", model: new ScriptedModel([]), subagents: [{ agent: "b", description: "x" }] },
        { name: "b", model: new ScriptedModel([]), subagents: [{ agent: "a", description: "x" }] },
      ],
    });
    expect(() => wireMultiAgent(cyclic.agents, undefined, [])).toThrow(/cycle: a → b → a/);
  });
});
