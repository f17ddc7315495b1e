import type { Context } from "hono";
import type { DecisionChannel } from "../../../protocol/index.js";
import { RequestError } from "../request-error.js";
import { requestHeader } from "./request-header.js";

/** The HTTP channels a client may name for its answers; the others (AG-UI, A2A, MCP) have their own routes. */
const HTTP_CHANNELS: ReadonlySet<string> = new Set<DecisionChannel>(["rest", "console", "cli"]);

/**
 * The channel an answer over the REST routes came through, for its decision record: the
 * `AgentScope-Channel` header (`rest`, `console` or `cli`; default `rest`). It only labels the
 * record; who answered is always the authenticated user.
 */
export function answerChannel(c: Context): DecisionChannel {
  const value = requestHeader(c, "agentscope-channel")?.trim().toLowerCase();
  if (value === undefined || value === "") return "rest";
  if (!HTTP_CHANNELS.has(value))
    throw new RequestError(
      "invalid_request",
      `AgentScope-Channel: "${value}" is not one of ${[...HTTP_CHANNELS].join(", ")}`,
    );
  return value as DecisionChannel;
}
