import type { Agent } from "../../../agent/index.js";
import { newId } from "../../../message/index.js";
import type { CreateSessionOptions } from "../../../protocol/index.js";
import type { ServiceBackend, SessionRecord } from "../backend/types.js";
import { RequestError, sessionNotFound } from "../request-error.js";
import type { ServiceLog } from "./service-log.js";
import type { SessionTimeTravel } from "./session-time-travel.js";

const SESSION_ID = /^[\w.:-]{1,200}$/;

/** What creating a session needs of the runtime. */
export interface SessionCreation {
  backend: ServiceBackend;
  agents: ReadonlyMap<string, Agent>;
  /** The agent of a session created without naming one. */
  defaultAgent: string;
  timeTravel: SessionTimeTravel | undefined;
  log: ServiceLog;
}

/**
 * Creates a session of `user`: its record, then its agent's first state (the record is removed again
 * when that save fails), then its start checkpoint. A taken id is a `conflict`, or "not found" when
 * another user holds it, so ids cannot be probed.
 */
export async function createSession(
  ctx: SessionCreation,
  user: string,
  options: CreateSessionOptions,
): Promise<SessionRecord> {
  const { backend } = ctx;
  const sessionId = options.sessionId ?? newId("session");
  if (!SESSION_ID.test(sessionId))
    throw new RequestError("invalid_request", `sessionId: use 1-200 letters, digits, "_", ".", ":" or "-"`);
  const agentName = options.agent ?? ctx.defaultAgent;
  const agent = ctx.agents.get(agentName);
  if (!agent)
    throw new RequestError(
      "invalid_request",
      `agent: unknown agent "${agentName}" (have: ${[...ctx.agents.keys()].join(", ")})`,
    );
  const record: SessionRecord = {
    sessionId,
    owner: user,
    agent: agentName,
    createdAt: new Date().toISOString(),
  };
  if (options.title !== undefined) record.title = options.title;
  if (!(await backend.sessions.create(record))) {
    const existing = await backend.sessions.get(sessionId);
    if (existing && existing.owner !== user) throw sessionNotFound(sessionId);
    throw new RequestError("conflict", `session "${sessionId}" already exists`);
  }
  const state = agent.createState(sessionId);
  try {
    await backend.store.save(sessionId, state, { expectedVersion: 0 });
  } catch (error) {
    await backend.sessions.delete(sessionId);
    throw error;
  }
  await ctx.timeTravel
    ?.atStart(record, state)
    .catch((error: Error) =>
      ctx.log({ level: "error", sessionId, message: `start checkpoint failed: ${error.message}` }),
    );
  return record;
}
