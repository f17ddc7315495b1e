import { describe, expect, it } from "vitest";
import { z } from "zod";
import { Agent } from "../../src/agent/index.js";
import {
  type AgentEvent,
  type DecisionEvent,
  decisionsOf,
  type RequireUserConfirmEvent,
  userConfirmResult,
} from "../../src/event/index.js";
import type { ToolCallBlock } from "../../src/message/index.js";
import { userMsg } from "../../src/message/index.js";
import type { ApproverOptions } from "../../src/permission/index.js";
import { ScriptedModel } from "../../src/testing/index.js";
import { functionTool } from "../../src/tool/index.js";
import { collect } from "./helpers.js";

function deployer(log: string[]) {
  return functionTool({
    name: "deploy",
    description: "Deploys a service",
    input: z.object({ service: z.string() }),
    suggestRules: () => ["deploy"],
    execute: ({ service }) => {
      log.push(service);
      return `deployed ${service}`;
    },
  });
}

function setup(approvers: ApproverOptions) {
  const log: string[] = [];
  const model = new ScriptedModel([
    { toolCalls: [{ name: "deploy", input: { service: "api" } }] },
    { text: "Deployed." },
  ]);
  const agent = new Agent({ name: "ops", model, toolkit: [deployer(log)], approvers });
  return { agent, log };
}

const askOf = (events: AgentEvent[]) => {
  const ask = events.findLast((e): e is RequireUserConfirmEvent => e.type === "REQUIRE_USER_CONFIRM");
  if (!ask) throw new Error("no REQUIRE_USER_CONFIRM");
  return ask;
};
const records = (events: AgentEvent[]) => events.filter((e): e is DecisionEvent => e.type === "DECISION");

const by = (
  ask: RequireUserConfirmEvent,
  name: string,
  options: { roles?: string[]; confirmed?: boolean; input?: string } = {},
) => {
  const call: ToolCallBlock = ask.toolCalls[0]!;
  return userConfirmResult({
    replyId: ask.replyId,
    confirmResults: [
      {
        confirmed: options.confirmed ?? true,
        toolCall: { id: call.id, name: call.name, input: options.input ?? call.input },
      },
    ],
    answeredBy: { name, channel: "code", ...(options.roles ? { roles: options.roles } : {}) },
  });
};

describe("approver policies", () => {
  it("someone the policy does not name is refused with the policy's name, on record; the call keeps waiting and an approver's answer runs it", async () => {
    const { agent, log } = setup({
      policies: [{ name: "deploys-need-sre", tools: ["deploy"], roles: ["sre"] }],
    });
    const ask = askOf(await collect(agent.replyStream(userMsg("deploy api"))));

    const refused = await collect(agent.replyStream(by(ask, "mallory", { roles: ["dev"] })));
    expect(refused.some((e) => e.type === "USER_CONFIRM_RESULT")).toBe(false);
    expect(records(refused)[0]).toMatchObject({
      outcome: "policy_refusal",
      actor: "mallory",
      policy: "deploys-need-sre",
      reason:
        'the approver policy "deploys-need-sre" lets only roles sre answer; mallory (roles: dev) may not',
    });
    expect(log).toEqual([]);
    // asked again: the reply is paused on the same call
    const again = askOf(refused);
    expect(again.toolCalls[0]!.id).toBe(ask.toolCalls[0]!.id);
    expect(agent.state.replyContext?.waitingFor).toBe("user_confirm");

    // a refusal from a non-approver is no veto either
    const veto = await collect(agent.replyStream(by(again, "mallory", { confirmed: false })));
    expect(records(veto)[0]).toMatchObject({ outcome: "policy_refusal", actor: "mallory" });
    expect(agent.state.replyContext?.waitingFor).toBe("user_confirm");

    const approved = await collect(agent.replyStream(by(askOf(veto), "sam", { roles: ["sre"] })));
    expect(records(approved)[0]).toMatchObject({
      outcome: "approve",
      actor: "sam",
      policy: "deploys-need-sre",
    });
    expect(log).toEqual(["api"]);
  });

  it("roles come from rolesOf when the answer carries none; listed users may answer by name", async () => {
    const { agent, log } = setup({
      policies: [{ name: "leads", users: ["lee"], roles: ["admin"] }],
      rolesOf: (name) => (name === "ada" ? ["admin"] : []),
    });
    const ask = askOf(await collect(agent.replyStream(userMsg("deploy api"))));
    const bob = await collect(agent.replyStream(by(ask, "bob")));
    expect(records(bob)[0]).toMatchObject({
      outcome: "policy_refusal",
      reason: 'the approver policy "leads" lets only users lee or roles admin answer; bob (no roles) may not',
    });
    await collect(agent.replyStream(by(askOf(bob), "ada")));
    expect(log).toEqual(["api"]);

    const second = setup({ policies: [{ name: "leads", users: ["lee"] }] });
    const ask2 = askOf(await collect(second.agent.replyStream(userMsg("deploy api"))));
    await collect(second.agent.replyStream(by(ask2, "lee")));
    expect(second.log).toEqual(["api"]);
  });

  it("a quorum of 2: the first approval is a vote, the same person twice is refused, a second approver runs the call once", async () => {
    const { agent, log } = setup({
      policies: [{ name: "two-sres", tools: ["deploy"], roles: ["sre"], quorum: 2 }],
    });
    const ask = askOf(await collect(agent.replyStream(userMsg("deploy api"))));
    const first = await collect(agent.replyStream(by(ask, "sam", { roles: ["sre"] })));
    expect(records(first)[0]).toMatchObject({
      outcome: "vote",
      actor: "sam",
      reason: 'approval 1 of 2 under the approver policy "two-sres"',
    });
    expect(log).toEqual([]);

    const twice = await collect(agent.replyStream(by(askOf(first), "sam", { roles: ["sre"] })));
    expect(records(twice)[0]).toMatchObject({ outcome: "policy_refusal", actor: "sam" });
    expect(records(twice)[0]!.reason).toContain("needs 2 different approvers (1 so far)");

    const edit = await collect(
      agent.replyStream(by(askOf(twice), "sue", { roles: ["sre"], input: '{"service":"db"}' })),
    );
    expect(records(edit)[0]).toMatchObject({ outcome: "policy_refusal", approvedInput: '{"service":"db"}' });
    expect(log).toEqual([]);

    const done = await collect(agent.replyStream(by(askOf(edit), "sue", { roles: ["sre"] })));
    expect(records(done)[0]).toMatchObject({ outcome: "approve", actor: "sue", approvers: ["sam", "sue"] });
    expect(log).toEqual(["api"]);
    // the whole trail is stored with the reply, in order
    expect(decisionsOf(agent.state.context).map((r) => `${r.outcome}:${r.actor}`)).toEqual([
      "ask:engine",
      "vote:sam",
      "ask:engine",
      "policy_refusal:sam",
      "ask:engine",
      "policy_refusal:sue",
      "ask:engine",
      "approve:sue",
    ]);
  });

  it("one approver's refusal refuses the call under a quorum", async () => {
    const { agent, log } = setup({ policies: [{ name: "two-sres", roles: ["sre"], quorum: 2 }] });
    const ask = askOf(await collect(agent.replyStream(userMsg("deploy api"))));
    const rest = await collect(agent.replyStream(by(ask, "sam", { roles: ["sre"], confirmed: false })));
    expect(records(rest)[0]).toMatchObject({ outcome: "deny", actor: "sam", policy: "two-sres" });
    expect(rest.at(-1)).toMatchObject({ type: "REPLY_END", finishedReason: "completed" });
    expect(log).toEqual([]);
  });

  it("a policy by rule governs the asks that rule made; an ask the mode made takes anyone's answer", async () => {
    const policies = [{ name: "asked-by-rule", rules: ["deploy"], users: ["lee"] }];
    const byMode = setup({ policies });
    const ask = askOf(await collect(byMode.agent.replyStream(userMsg("deploy api"))));
    expect(records(await collect(byMode.agent.replyStream(by(ask, "bob"))))[0]).toMatchObject({
      outcome: "approve",
      actor: "bob",
    });
    expect(byMode.log).toEqual(["api"]);

    const log: string[] = [];
    const byRule = new Agent({
      name: "ops",
      model: new ScriptedModel([
        { toolCalls: [{ name: "deploy", input: { service: "api" } }] },
        { text: "ok" },
      ]),
      toolkit: [deployer(log)],
      permission: { ask: ["deploy"] },
      approvers: { policies },
    });
    const ruled = askOf(await collect(byRule.replyStream(userMsg("deploy api"))));
    const refused = await collect(byRule.replyStream(by(ruled, "bob")));
    expect(records(refused)[0]).toMatchObject({ outcome: "policy_refusal", policy: "asked-by-rule" });
    expect(log).toEqual([]);
  });

  it("bad policies are refused when the agent is built, naming the policy and the field", () => {
    const make = (approvers: unknown) => () =>
      new Agent({ name: "a", model: new ScriptedModel([]), approvers: approvers as ApproverOptions });
    expect(make({ policies: [{ tools: ["x"] }] })).toThrow("approvers.policies[0].name");
    expect(make({ policies: [{ name: "q", roles: ["a"], quorum: 0 }] })).toThrow(
      "approvers.policies[0].quorum: expected an integer ≥ 1",
    );
    expect(make({ policies: [{ name: "q", quorum: 2 }] })).toThrow("a quorum needs users or roles");
    expect(make({ policies: [{ name: "a" }, { name: "a" }] })).toThrow('two approver policies are named "a"');
    expect(make({ policies: [{ name: "r", rules: ["Bash(unclosed"] }] })).toThrow(
      "approvers.policies[0].rules",
    );
  });
});
