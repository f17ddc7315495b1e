// The agent under test in the eval example (docs/evals.md): a support agent that looks an order up
// and refunds it after a person approves. `agentscope eval --agent examples/eval-agent.ts` loads the
// default export, an AgentFactory. Its model is scripted, so everything runs offline.

import { Agent } from "agentscope/agent";
import type { AgentFactory } from "agentscope/eval";
import { type Msg, textOf } from "agentscope/message";
import { ScriptedModel } from "agentscope/testing";
import { functionTool } from "agentscope/tool";
import { z } from "zod";

export const SYSTEM_PROMPT = "You are a support agent. Look the order up before you refund it.";

const ORDERS: Record<string, { item: string; paid: number }> = {
  A1: { item: "kettle", paid: 30 },
  B2: { item: "lamp", paid: 45 },
  C3: { item: "chair", paid: 80 },
};

export const supportTools = () => [
  functionTool({
    name: "lookup_order",
    description: "Finds an order by id",
    input: z.object({ id: z.string() }),
    readOnly: true,
    execute: ({ id }) => {
      const order = ORDERS[id];
      return order ? `order ${id}: ${order.item}, paid $${order.paid}` : `no order ${id}`;
    },
  }),
  functionTool({
    name: "refund",
    description: "Refunds an order (asks a person first)",
    input: z.object({ id: z.string(), amount: z.number() }),
    execute: ({ id, amount }) => `refunded $${amount} for order ${id}`,
  }),
];

const orderId = (messages: Msg[]) =>
  /\b([A-Z]\d)\b/.exec(textOf(messages.findLast((m) => m.role === "user")!))?.[1] ?? "A1";
const lastOutput = (messages: Msg[]) => {
  const block = messages.at(-1)!.content.findLast((b) => b.type === "tool_result");
  return block && typeof block.output === "string" ? block.output : "";
};

/**
 * A deterministic stand-in for a real model: it looks the order up, refunds what was paid unless the
 * prompt says to skip the lookup, and answers with the last tool result.
 */
export function supportModel(): ScriptedModel {
  return new ScriptedModel([
    (messages) =>
      textOf(messages[0]!).includes("skip the lookup")
        ? { toolCalls: [{ name: "refund", input: { id: orderId(messages), amount: 0 } }] }
        : { toolCalls: [{ name: "lookup_order", input: { id: orderId(messages) } }] },
    (messages) => {
      const paid = /^order .*\$(\d+)/.exec(lastOutput(messages));
      return paid
        ? { toolCalls: [{ name: "refund", input: { id: orderId(messages), amount: Number(paid[1]) } }] }
        : { text: lastOutput(messages) };
    },
    (messages) => ({ text: `Done: ${lastOutput(messages)}.` }),
  ]);
}

/** The agent under test, with a prompt of your choice (an A/B run changes it). */
export function supportAgent(systemPrompt = SYSTEM_PROMPT): AgentFactory {
  return (setup) =>
    new Agent({ name: "support", systemPrompt, toolkit: supportTools(), model: setup.model(supportModel()) });
}

export default supportAgent();

/** The prompt change of the A/B example: the agent refunds without looking the order up. */
export const hasty = supportAgent(`${SYSTEM_PROMPT} To be quick, skip the lookup.`);
