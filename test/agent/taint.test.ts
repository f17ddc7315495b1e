import { describe, expect, it } from "vitest";
import { z } from "zod";
import { Agent } from "../../src/agent/index.js";
import { decisionsOf, userConfirmResult } from "../../src/event/index.js";
import { blocksOf, type Msg, userMsg } from "../../src/message/index.js";
import { parseAgentState } from "../../src/state/index.js";
import { ScriptedModel, type ScriptedStep } from "../../src/testing/index.js";
import { functionTool } from "../../src/tool/index.js";
import { agentOf, askOf, bashStep, COMMAND, fetchStep, run, TAINT, tools } from "./taint-scenario.js";

/**
 * The prompt-injection scenario of issue 44: a fetched page tells the agent to run a command. With
 * taint tracking, the shell call asks (even under an allow rule) and says why; without the page, or
 * without tracking, the rule lets it run.
 */

describe("taint from a fetched page", () => {
  it("the shell call the page asked for asks, even under an allow rule, and says why", async () => {
    const ran: string[] = [];
    const agent = agentOf([fetchStep, bashStep, { text: "done" }], ran);
    const events = await run(agent, userMsg("find me a pasta recipe"));
    const ask = askOf(events);
    expect(ask?.toolCalls).toHaveLength(1);
    expect(ask?.toolCalls[0]).toMatchObject({ name: "Bash", state: "asking" });
    expect(ask?.toolCalls[0]?.reason).toBe(
      "Bash asks after reading a web page (web_fetch): the reply holds untrusted content that may be steering it",
    );
    expect(ask?.toolCalls[0]?.suggestedRules).toBeUndefined();
    expect(ran).toEqual([]);
    expect(agent.state.replyContext?.taint).toEqual(["a web page (web_fetch)"]);
  });

  it("without the page the same call runs under the rule (a control)", async () => {
    const ran: string[] = [];
    const events = await run(agentOf([bashStep, { text: "done" }], ran), userMsg("run it"));
    expect(askOf(events)).toBeUndefined();
    expect(ran).toEqual([COMMAND]);
  });

  it("without taint tracking the page does not change the decision (a control)", async () => {
    const ran: string[] = [];
    const events = await run(agentOf([fetchStep, bashStep, { text: "done" }], ran, null), userMsg("go"));
    expect(askOf(events)).toBeUndefined();
    expect(ran).toEqual([COMMAND]);
  });

  it("the mark survives a stored pause and follows into later steps; approving runs the call once", async () => {
    const ran: string[] = [];
    const steps = [fetchStep, bashStep, bashStep, { text: "done" }];
    const first = agentOf(steps, ran);
    const ask = askOf(await run(first, userMsg("go")));
    // The state goes through a store (JSON) and another Agent resumes it.
    const loaded = parseAgentState(JSON.parse(JSON.stringify(first.state)));
    expect(loaded.replyContext?.taint).toEqual(["a web page (web_fetch)"]);
    const model = new ScriptedModel(steps.slice(2));
    const second = new Agent({
      name: "a",
      model,
      toolkit: tools(ran),
      permission: { rules: ["Bash"] },
      taint: TAINT,
      state: loaded,
    });
    const call = ask?.toolCalls[0];
    if (!call) throw new Error("no ask");
    const paused = loaded.context.at(-1) as Msg;
    const answer = userConfirmResult({
      replyId: paused.id,
      confirmResults: [{ confirmed: true, toolCall: call }],
    });
    const events = await run(second, answer, paused);
    expect(ran).toEqual([COMMAND]);
    // The model's next shell call, a later step of the same reply, asks again.
    expect(askOf(events)?.toolCalls[0]?.reason).toContain("after reading a web page (web_fetch)");
    expect(ran).toHaveLength(1);
  });

  it("the page stays in memory, so the next reply starts marked (scope memory, the default)", async () => {
    const ran: string[] = [];
    const agent = agentOf([fetchStep, { text: "Here is the recipe." }, bashStep, { text: "done" }], ran);
    await run(agent, userMsg("recipe?"));
    expect(agent.state.replyContext).toBeUndefined();
    const events = await run(agent, userMsg("now run my build"));
    expect(askOf(events)?.toolCalls[0]?.reason).toContain("after reading a web page (web_fetch)");
    expect(ran).toEqual([]);
  });

  it("with scope reply the mark ends with its reply: the next reply's call runs under the rule", async () => {
    const ran: string[] = [];
    const agent = agentOf([fetchStep, { text: "Here is the recipe." }, bashStep, { text: "done" }], ran, {
      ...TAINT,
      scope: "reply",
    });
    await run(agent, userMsg("recipe?"));
    expect(agent.state.replyContext).toBeUndefined();
    expect(agent.state.taint).toBeUndefined();
    const events = await run(agent, userMsg("now run my build"));
    expect(askOf(events)).toBeUndefined();
    expect(ran).toEqual([COMMAND]);
  });

  it("whileTainted.deny refuses a tool outright while tainted", async () => {
    const ran: string[] = [];
    const agent = agentOf([fetchStep, bashStep, { text: "done" }], ran, {
      ...TAINT,
      whileTainted: { deny: ["Bash"] },
    });
    await run(agent, userMsg("go"));
    const results = blocksOf(agent.state.context.at(-1) as Msg, "tool_result");
    expect(results[1]).toMatchObject({ state: "denied" });
    expect(JSON.stringify(results[1]?.output)).toContain(
      "Bash is not allowed after reading a web page (web_fetch)",
    );
    expect(ran).toEqual([]);
  });
});

describe("the decision record carries the taint", () => {
  it("the page's Bash ask: its record and the ask name what tainted the reply; an untainted ask's record has none", async () => {
    const ran: string[] = [];
    const tainted = agentOf([fetchStep, bashStep, { text: "done" }], ran);
    const events = await run(tainted, userMsg("find me a pasta recipe"));
    expect(askOf(events)?.toolCalls[0]?.taint).toEqual(["a web page (web_fetch)"]);
    const asked = decisionsOf(tainted.state.context).filter((r) => r.outcome === "ask");
    expect(asked).toHaveLength(1);
    expect(asked[0]).toMatchObject({ toolName: "Bash", taint: ["a web page (web_fetch)"] });
    expect(asked[0]?.reason).toContain("after reading a web page (web_fetch)");

    // The control: the same call asked by the default mode (no allow rule), with nothing untrusted read.
    const clean = new Agent({
      name: "a",
      model: new ScriptedModel([bashStep, { text: "done" }]),
      toolkit: tools(ran),
      taint: TAINT,
    });
    const control = await run(clean, userMsg("run it"));
    expect(askOf(control)?.toolCalls[0]?.name).toBe("Bash");
    expect(askOf(control)?.toolCalls[0]).not.toHaveProperty("taint");
    const record = decisionsOf(clean.state.context).find((r) => r.outcome === "ask");
    expect(record).toBeDefined();
    expect(record).not.toHaveProperty("taint");
  });
});

describe("modes", () => {
  it("bypass mode asks too while tainted; dont_ask denies instead of asking", async () => {
    for (const [mode, expected] of [
      ["bypass", "ask"],
      ["dont_ask", "denied"],
    ] as const) {
      const ran: string[] = [];
      const agent = new Agent({
        name: "a",
        model: new ScriptedModel([fetchStep, bashStep, { text: "done" }]),
        toolkit: tools(ran),
        permission: { mode, rules: ["Bash"] },
        taint: TAINT,
      });
      const events = await run(agent, userMsg("go"));
      const result = blocksOf(agent.state.context.at(-1) as Msg, "tool_result")[1];
      if (expected === "ask") expect(askOf(events)?.toolCalls[0]?.name).toBe("Bash");
      else expect(result).toMatchObject({ state: "denied" });
      expect(ran).toEqual([]);
    }
  });
});

describe("other untrusted sources", () => {
  const readStep = (path: string): ScriptedStep => ({ toolCalls: [{ name: "Read", input: { path } }] });

  it("a file outside the working directories taints the reply; one inside does not", async () => {
    const ran: string[] = [];
    const outside = await run(
      agentOf([readStep("/tmp/downloaded/README.md"), bashStep, { text: "done" }], ran, {}),
      userMsg("go"),
    );
    expect(askOf(outside)?.toolCalls[0]?.reason).toContain(
      "after reading a file outside the workspace (/tmp/downloaded/README.md)",
    );
    const inside = await run(
      agentOf([readStep("/home/me/project/README.md"), bashStep, { text: "done" }], ran, {}),
      userMsg("go"),
    );
    expect(askOf(inside)).toBeUndefined();
    expect(ran).toEqual([COMMAND]);
  });

  it("every tool of an untrusted MCP server, by prefix", async () => {
    const ran: string[] = [];
    const mcp = functionTool({
      name: "mcp__scraper__get",
      description: "",
      input: z.object({}),
      readOnly: true,
      execute: () => "page",
    });
    const agent = new Agent({
      name: "a",
      model: new ScriptedModel([
        { toolCalls: [{ name: "mcp__scraper__get", input: {} }] },
        bashStep,
        { text: "done" },
      ]),
      toolkit: [...tools(ran), mcp],
      permission: { rules: ["Bash"] },
      taint: { tools: { "mcp__scraper__*": "an untrusted MCP server" } },
    });
    const events = await run(agent, userMsg("go"));
    expect(askOf(events)?.toolCalls[0]?.reason).toContain(
      "after reading an untrusted MCP server (mcp__scraper__get)",
    );
  });
});
