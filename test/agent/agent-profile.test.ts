import { describe, expect, it } from "vitest";
import { z } from "zod";
import { Agent, type Middleware } from "../../src/agent/index.js";
import type { Msg } from "../../src/message/index.js";
import { textOf, userMsg } from "../../src/message/index.js";
import { ScriptedModel } from "../../src/testing/index.js";
import { functionTool, type Tool, Toolkit } from "../../src/tool/index.js";

/** A middleware whose prompt depends on its per-session data: the profile must not change that data. */
const counter: Middleware = {
  name: "counter",
  systemPrompt(prompt, ctx) {
    const data = ctx.data(() => ({ calls: 0 }));
    data.calls += 1;
    return `${prompt}\nCall number ${data.calls}.`;
  },
};

function agentWith(model: ScriptedModel) {
  const toolkit = new Toolkit([
    functionTool({
      name: "lookup",
      description: "Looks up",
      input: z.object({ id: z.string() }),
      readOnly: true,
      execute: () => "ok",
    }) as Tool,
  ]);
  toolkit.createGroup({
    name: "admin",
    description: "admin tools",
    notes: "Admin tools are on.",
    active: true,
  });
  toolkit.register(
    functionTool({ name: "wipe", description: "Wipes", input: z.object({}), execute: () => "wiped" }) as Tool,
    { group: "admin" },
  );
  return new Agent({
    name: "helper",
    systemPrompt: "You help.",
    model,
    fallbackModel: new ScriptedModel([], { name: "backup" }),
    toolkit,
    middlewares: [counter],
    permission: { deny: ["wipe"] },
  });
}

describe("Agent.profile: the inspector's view of an agent", () => {
  it("the system prompt is the one the next model call sends (middleware and group notes applied); the state is untouched", async () => {
    const model = new ScriptedModel([{ text: "Hi." }]);
    const agent = agentWith(model);
    const state = agent.createState("s1");
    const profile = agent.profile(state);
    expect(state.middleware).toEqual({});
    await agent.reply(userMsg("hello"), { state });
    const sent = model.calls[0]!.messages[0] as Msg;
    expect(profile.systemPrompt).toBe(textOf(sent));
    expect(profile.systemPrompt).toBe("You help.\nCall number 1.\n\nadmin: Admin tools are on.");
  });

  it("lists tools with schemas, groups and permission behaviour, the rules, middleware hooks and the models", () => {
    const profile = agentWith(new ScriptedModel([])).profile();
    expect(profile.tools.map((t) => [t.name, t.group, t.readOnly, t.fallback])).toEqual([
      ["lookup", "basic", true, "allowed: it is read-only"],
      ["wipe", "admin", false, "asks a person"],
    ]);
    expect(profile.tools[1]?.rules).toEqual([{ behavior: "deny", rule: "wipe", source: "user" }]);
    expect(profile.tools[0]?.inputSchema).toMatchObject({
      properties: { id: { type: "string" } },
      required: ["id"],
    });
    expect(profile.middlewares).toEqual([{ name: "counter", hooks: ["systemPrompt"] }]);
    expect(profile.fallbackModel?.name).toBe("backup");
    expect(profile.permission.mode).toBe("default");
    expect(profile.mcpServers).toEqual([]);
  });
});
