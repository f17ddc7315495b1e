import { expect } from "vitest";
import type { Agent } from "../../../src/agent/index.js";
import { type AgentEvent, applyEvent } from "../../../src/event/index.js";
import { type Msg, parseMsg, userMsg } from "../../../src/message/index.js";

/**
 * One reply through a real Agent. The folded event stream must equal the stored reply Msg, and the
 * stored Msg must survive a store as JSON: what a client rebuilds, what is saved and what goes back
 * on the next request are then one and the same.
 */
export async function replyThroughAgent(
  agent: Agent,
  text: string,
): Promise<{ msg: Msg; events: AgentEvent[] }> {
  let folded: Msg | undefined;
  const events: AgentEvent[] = [];
  for await (const event of agent.replyStream(userMsg(text))) {
    events.push(event);
    folded = applyEvent(folded, event);
  }
  const stored = agent.state.context.at(-1) as Msg;
  expect(folded).toEqual(stored);
  expect(parseMsg(JSON.parse(JSON.stringify(stored)))).toEqual(stored);
  return { msg: stored, events };
}
