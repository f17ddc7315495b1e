import type { Msg } from "../message/index.js";
import type { SendInput } from "./types.js";

const localId = (prefix: string) => `${prefix}_local_${Math.random().toString(36).slice(2, 12)}`;

/**
 * The user messages `send(input)` adds to a view before the service has stored them (the event
 * stream carries only the agent's side). Browser-safe: no node:crypto. The stored copies, with the
 * service's ids, replace them when the messages are reloaded.
 */
export function localUserMessages(input: SendInput): Msg[] {
  if (typeof input !== "string") return Array.isArray(input) ? input : [input];
  return [
    {
      id: localId("msg"),
      name: "user",
      role: "user",
      content: [{ type: "text", id: localId("block"), text: input }],
      metadata: {},
      createdAt: new Date().toISOString(),
    },
  ];
}
