import { describe, expect, it } from "vitest";
import { z } from "zod";
import { Agent, type AgentOptions } from "../../src/agent/index.js";
import {
  type AgentEvent,
  decisionsOf,
  externalExecutionResult,
  type RequireUserConfirmEvent,
  userConfirmResult,
} from "../../src/event/index.js";
import { blocksOf, type ToolCallBlock, userMsg } from "../../src/message/index.js";
import { type AgentState, parseAgentState } from "../../src/state/index.js";
import { ScriptedModel } from "../../src/testing/index.js";
import { functionTool, type Tool } from "../../src/tool/index.js";
import { collect } from "./helpers.js";

/** The refund tool of one deploy: `extra` adds a parameter (another schema), `idempotent` another behaviour. */
function refund(log: string[], version: { extra?: boolean; idempotent?: boolean } = {}): Tool {
  const input = version.extra
    ? z.object({ order: z.string(), currency: z.string().optional() })
    : z.object({ order: z.string() });
  return functionTool({
    name: "refund",
    description: "Refunds an order",
    input,
    idempotent: version.idempotent ?? false,
    execute: ({ order }) => {
      log.push(order);
      return `refunded ${order}`;
    },
  }) as Tool;
}

/** A reply paused on a refund ask, in deploy 1; the state as a store gives it back. */
async function pausedInDeploy1(options: Partial<AgentOptions> = {}): Promise<AgentState> {
  const agent = new Agent({
    name: "support",
    model: new ScriptedModel([{ toolCalls: [{ name: "refund", input: { order: "A1" } }] }]),
    toolkit: [refund([])],
    ...options,
  });
  await agent.reply(userMsg("refund A1"));
  expect(agent.state.replyContext?.waitingFor).toBe("user_confirm");
  return parseAgentState(JSON.stringify(agent.state));
}

/** Deploy 2: a new Agent over the stored state. */
function deploy2(state: AgentState, toolkit: Tool[], options: Partial<AgentOptions> = {}) {
  return new Agent({
    name: "support",
    model: new ScriptedModel([{ text: "Handled." }]),
    toolkit,
    state,
    ...options,
  });
}

const askedCall = (state: AgentState) =>
  blocksOf(state.context.at(-1)!, "tool_call").find((c) => c.state === "asking") as ToolCallBlock;

async function approve(agent: Agent): Promise<AgentEvent[]> {
  const call = askedCall(agent.state);
  return collect(
    agent.replyStream(
      userConfirmResult({
        replyId: agent.state.replyContext!.replyId,
        confirmResults: [{ confirmed: true, toolCall: call }],
      }),
    ),
  );
}

describe("pause fingerprints: a pause resumed after a deploy", () => {
  it("stores what the paused call depends on", async () => {
    const state = await pausedInDeploy1({ permission: { rules: ["Read(src/**)"] } });
    const call = askedCall(state);
    expect(state.replyContext?.fingerprints?.[call.id]).toMatchObject({
      tool: "refund",
      behaviour: [],
      rules: ["Read(src/**)"],
      mode: "default",
      model: "scripted",
    });
  });

  it("an unchanged tool continues: the approval runs it", async () => {
    const log: string[] = [];
    const agent = deploy2(await pausedInDeploy1(), [refund(log)]);
    const events = await approve(agent);
    expect(log).toEqual(["A1"]);
    expect(events.at(-1)).toMatchObject({ type: "REPLY_END", finishedReason: "completed" });
    expect(decisionsOf(agent.state.context).map((r) => r.outcome)).toEqual(["ask", "approve"]);
  });

  it("a changed schema: the answer is not taken, the call is asked again with the difference, then runs once approved", async () => {
    const log: string[] = [];
    const agent = deploy2(await pausedInDeploy1(), [refund(log, { extra: true })]);
    const events = await approve(agent);
    expect(log).toEqual([]);
    expect(events.map((e) => e.type)).not.toContain("USER_CONFIRM_RESULT");
    const ask = events.find((e): e is RequireUserConfirmEvent => e.type === "REQUIRE_USER_CONFIRM")!;
    expect(ask.toolCalls[0]!.reason).toContain("the input schema of refund changed");
    const changed = decisionsOf(agent.state.context).find((r) => r.outcome === "changed");
    expect(changed).toMatchObject({ toolName: "refund", changes: ["the input schema of refund changed"] });
    expect(agent.state.replyContext?.waitingFor).toBe("user_confirm");
    // Asked again under the new deploy, the answer is taken.
    const again = await approve(agent);
    expect(log).toEqual(["A1"]);
    expect(again.at(-1)).toMatchObject({ type: "REPLY_END", finishedReason: "completed" });
  });

  it("changed permission behaviour, rules or model ask again too, naming each change", async () => {
    const state = await pausedInDeploy1();
    const agent = deploy2(state, [refund([], { idempotent: true })], {
      permission: { rules: ["Bash(git status:*)"] },
      model: new ScriptedModel([{ text: "x" }], { name: "other" }),
    });
    const events = await approve(agent);
    const reason = events.find((e): e is RequireUserConfirmEvent => e.type === "REQUIRE_USER_CONFIRM")!
      .toolCalls[0]!.reason!;
    expect(reason).toContain("the permission behaviour of refund changed (+idempotent)");
    expect(reason).toContain("the agent's rules changed (+Bash(git status:*))");
    expect(reason).toContain("the model changed (scripted → other)");
  });

  it('with onPauseChange: "continue" a changed tool continues', async () => {
    const log: string[] = [];
    const agent = deploy2(await pausedInDeploy1(), [refund(log, { extra: true })], {
      onPauseChange: "continue",
    });
    await approve(agent);
    expect(log).toEqual(["A1"]);
  });

  it("a removed tool fails closed: an error result that says so, the model reads it, nothing runs", async () => {
    const agent = deploy2(await pausedInDeploy1(), []);
    const events = await approve(agent);
    const result = blocksOf(agent.state.context.at(-1)!, "tool_result")[0]!;
    expect(result.state).toBe("error");
    expect(result.output).toContain("the tool refund was removed since this call paused; it was not run");
    expect(events.at(-1)).toMatchObject({ type: "REPLY_END", finishedReason: "completed" });
    expect(decisionsOf(agent.state.context).at(-1)).toMatchObject({
      outcome: "changed",
      changes: ["refund was removed"],
    });
  });

  it("a removed external tool's result is not taken", async () => {
    const lookup = functionTool({
      name: "crm",
      description: "Runs in the client",
      input: z.object({ q: z.string() }),
      readOnly: true,
      external: true,
      execute: () => "never here",
    }) as Tool;
    const first = new Agent({
      name: "support",
      model: new ScriptedModel([{ toolCalls: [{ name: "crm", input: { q: "A1" } }] }]),
      toolkit: [lookup],
    });
    await first.reply(userMsg("look A1 up"));
    expect(first.state.replyContext?.waitingFor).toBe("external_execution");
    const agent = deploy2(parseAgentState(JSON.stringify(first.state)), []);
    const call = blocksOf(agent.state.context.at(-1)!, "tool_call")[0]!;
    await agent.reply(
      externalExecutionResult({
        replyId: agent.state.replyContext!.replyId,
        toolResults: [{ type: "tool_result", id: call.id, name: "crm", output: "secret", state: "success" }],
      }),
    );
    const result = blocksOf(agent.state.context.at(-1)!, "tool_result")[0]!;
    expect(result.state).toBe("error");
    expect(JSON.stringify(result.output)).not.toContain("secret");
    expect(result.output).toContain("removed");
  });
});
