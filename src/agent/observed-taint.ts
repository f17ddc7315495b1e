import type { Msg } from "../message/index.js";
import type { AgentState } from "../state/index.js";
import { addMark, markReply } from "./taint-marks.js";
import type { TaintOptions } from "./taint-options.js";

/** A sender's name as an ask shows it: plain names as they are, anything else quoted and cut short. */
const PLAIN_NAME = /^[\p{L}\p{N}_.@-]{1,64}$/u;
const MAX_SHOWN = 64;

function senderOf(name: string): string {
  if (PLAIN_NAME.test(name)) return name;
  if (name === "") return "an unnamed sender";
  const cut = [...name];
  return cut.length > MAX_SHOWN
    ? `${JSON.stringify(cut.slice(0, MAX_SHOWN).join(""))}…`
    : JSON.stringify(name);
}

/** What an observed message of `name` marks the memory with: "a message from mallory (hub)". */
export function observedReason(name: string): string {
  return `a message from ${senderOf(name)} (hub)`;
}

/**
 * How an agent named `self` marks what it observes (chosen once, when the Agent is built; undefined:
 * observing marks nothing): each message whose sender is neither the agent nor trusted is kept as a
 * mark in the state (the agent's next reply starts marked, and with scope "memory" so does every
 * reply while the message is in memory), and marks a reply running meanwhile.
 */
export function observedTaint(
  self: string,
  option: TaintOptions["observed"],
): ((msgs: readonly Msg[], state: AgentState) => void) | undefined {
  if (option === false) return undefined;
  const trusted = new Set([self, ...(typeof option === "object" ? option.trust : [])]);
  return (msgs, state) => {
    for (const msg of msgs) {
      const name = typeof msg.name === "string" ? msg.name : "";
      if (trusted.has(name)) continue;
      const reason = observedReason(name);
      addMark(state, reason, msg.id);
      if (state.replyContext) markReply(state.replyContext, reason);
    }
  };
}
