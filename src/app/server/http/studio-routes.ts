import type { Hono } from "hono";
import { EvalCaseError } from "../../../eval/eval-error.js";
import { caseFromSession } from "../../../eval/record-session.js";
import type { AgentEvent } from "../../../event/index.js";
import type { SessionStateVersion } from "../../../protocol/index.js";
import type { AgentState } from "../../../state/index.js";
import { RequestError, sessionNotFound } from "../request-error.js";
import type { ServiceRuntime } from "../runtime/service-runtime.js";
import type { WorkspaceManager } from "../workspace-manager.js";
import type { ServiceVariables } from "./auth.js";
import { routesFrom } from "./routes-from.js";

/** Events read from the log per round trip. */
const PAGE = 1000;
const CASE_ID = /^[\w.:-]{1,200}$/;

/** The session's state as stored (its owner checked first: another user's session is a 404). */
export async function storedState(
  runtime: ServiceRuntime,
  user: string,
  sessionId: string,
): Promise<AgentState> {
  await runtime.getSession(user, sessionId);
  const stored = await runtime.backend.store.load(sessionId);
  if (!stored) throw sessionNotFound(sessionId);
  return stored.state;
}

/** The state a checkpoint of the session holds (a server without checkpoints refuses: invalid_state). */
async function checkpointState(
  runtime: ServiceRuntime,
  user: string,
  sessionId: string,
  id: string,
): Promise<SessionStateVersion> {
  const record = await runtime.getSession(user, sessionId);
  if (!runtime.timeTravel)
    throw new RequestError(
      "invalid_state",
      "this server keeps no checkpoints (it runs without `checkpoints`)",
    );
  const timeline = runtime.timeTravel.timelineOf(record);
  const checkpoint = await timeline.get(id);
  if (!checkpoint) throw new RequestError("not_found", `session "${sessionId}" has no checkpoint "${id}"`);
  const state = JSON.parse(JSON.stringify(await timeline.state(checkpoint))) as Record<string, unknown>;
  return { version: checkpoint.stateVersion, readAt: new Date().toISOString(), state, checkpoint: id };
}

/** The session's agent and its stored state. */
async function sessionAgent(runtime: ServiceRuntime, user: string, sessionId: string) {
  const record = await runtime.getSession(user, sessionId);
  const state = await storedState(runtime, user, sessionId);
  const agent = runtime.agent(record.agent);
  if (!agent)
    throw new RequestError("not_found", `agent "${record.agent}" of this session is no longer served`);
  return { agent, state };
}

/** Every event the session's log still holds, oldest first. */
async function loggedEvents(runtime: ServiceRuntime, sessionId: string): Promise<AgentEvent[]> {
  const events: AgentEvent[] = [];
  for (let after = 0; ; ) {
    const page = await runtime.backend.events.read(sessionId, after, PAGE);
    for (const logged of page) events.push(logged.event);
    if (page.length < PAGE) return events;
    after = page.at(-1)!.seq;
  }
}

/**
 * The studio's routes over a session: `GET /v1/sessions/:id/agent` is the agent inspector
 * (`Agent.profile` for the session's state, plus its workspace), `POST
 * /v1/sessions/:id/tools/:name/run` the tool playground (`Agent.tryTool`), `GET
 * /v1/sessions/:id/state` the state inspector (the stored state and its version), `GET /v1/sessions/:id/eval-case`
 * records the session (or one finished reply) as an eval case with agentscope/eval's
 * `caseFromSession`, for the console's "Save as test case" (docs/evals.md).
 */
export function studioRoutes(
  runtime: ServiceRuntime,
  workspaces?: WorkspaceManager,
): Hono<{ Variables: ServiceVariables }> {
  return routesFrom({
    inspectAgent: async (c, request) => {
      const { agent, state } = await sessionAgent(runtime, c.var.user, request.param("id"));
      const profile = agent.profile(state);
      if (workspaces) profile.workspace = { scope: workspaces.scope, sandboxed: workspaces.sandboxed };
      return c.json(profile);
    },

    sessionState: async (c, request) => {
      const sessionId = request.param("id");
      await runtime.getSession(c.var.user, sessionId);
      const checkpoint = c.req.query("checkpoint");
      if (checkpoint) return c.json(await checkpointState(runtime, c.var.user, sessionId, checkpoint));
      const stored = await runtime.backend.store.load(sessionId);
      if (!stored) throw sessionNotFound(sessionId);
      const state = JSON.parse(JSON.stringify(stored.state)) as Record<string, unknown>;
      return c.json({ version: stored.version, readAt: new Date().toISOString(), state });
    },

    runTool: async (c, request) => {
      const body = await request.body();
      const { agent, state } = await sessionAgent(runtime, c.var.user, request.param("id"));
      const options = { approved: body.approved === true, signal: c.req.raw.signal };
      return c.json(await agent.tryTool(request.param("name"), body.input, state, options));
    },

    sessionEvalCase: async (c, request) => {
      const sessionId = request.param("id");
      const state = await storedState(runtime, c.var.user, sessionId);
      const replyId = c.req.query("replyId") || undefined;
      const caseId =
        c.req.query("caseId") || `${replyId ?? sessionId}`.replace(/[^\w.:-]/g, "_").slice(0, 200);
      if (!CASE_ID.test(caseId))
        throw new RequestError("invalid_request", "caseId: 1 to 200 letters, digits, _ . : or -");
      const events = await loggedEvents(runtime, sessionId);
      let evalCase: ReturnType<typeof caseFromSession>;
      try {
        evalCase = caseFromSession(state, events, { id: caseId, ...(replyId ? { replyId } : {}) });
      } catch (error) {
        if (error instanceof EvalCaseError) throw new RequestError("invalid_state", error.message);
        throw error;
      }
      const plain = JSON.parse(JSON.stringify(evalCase)) as Record<string, unknown>;
      return c.json({ case: plain, jsonl: `${JSON.stringify(plain)}\n`, fileName: `${caseId}.jsonl` });
    },
  });
}
