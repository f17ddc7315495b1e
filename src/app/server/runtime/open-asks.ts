import type { AgentEvent } from "../../../event/index.js";
import type { ToolCallBlock } from "../../../message/index.js";
import type { AgentState } from "../../../state/index.js";
import type { ServiceBackend } from "../backend/types.js";

const PAGE = 1_000;

/**
 * One call a session waits on a person for: its own reply's, a nested sub-run's (inside one of its
 * tool calls: `source` names the path), or a spawned sub-agent session's (`subagentId`). The answer
 * goes to `sessionId` with `replyId` (a nested run's own reply id routes it to the call that waits).
 * What AG-UI interrupts and A2A `input-required` statuses carry (`askRequest`).
 */
export interface OpenAsk {
  kind: "confirm" | "external";
  sessionId: string;
  replyId: string;
  source?: string;
  subagentId?: string;
  call: ToolCallBlock;
  reason?: string;
  suggestedRules?: string[];
  expiresAt?: string;
}

/** An ask as plain JSON for a client: which call, of which tool, with what input, and where it goes. */
export function askRequest(ask: OpenAsk): Record<string, unknown> {
  return {
    sessionId: ask.sessionId,
    replyId: ask.replyId,
    toolCallId: ask.call.id,
    toolName: ask.call.name,
    input: ask.call.input,
    ...(ask.source ? { source: ask.source } : {}),
    ...(ask.subagentId ? { subagentId: ask.subagentId } : {}),
    ...(ask.reason ? { reason: ask.reason } : {}),
    ...(ask.kind === "confirm" ? { suggestedRules: ask.suggestedRules ?? [] } : {}),
    ...(ask.expiresAt ? { expiresAt: ask.expiresAt } : {}),
  };
}

/** The asks of one REQUIRE_* event (the session it was logged in: `sessionId`). */
export function asksOfEvent(event: AgentEvent, sessionId: string): OpenAsk[] {
  if (event.type !== "REQUIRE_USER_CONFIRM" && event.type !== "REQUIRE_EXTERNAL_EXECUTION") return [];
  const kind = event.type === "REQUIRE_USER_CONFIRM" ? "confirm" : "external";
  return event.toolCalls.map((entry) => {
    const {
      reason,
      suggestedRules,
      expiresAt,
      preview: _preview,
      ...call
    } = entry as typeof entry & {
      reason?: string;
      suggestedRules?: string[];
      expiresAt?: string;
      preview?: unknown;
    };
    return {
      kind,
      sessionId,
      replyId: event.replyId,
      ...(event.source ? { source: event.source } : {}),
      call,
      ...(reason ? { reason } : {}),
      ...(kind === "confirm" ? { suggestedRules: suggestedRules ?? [] } : {}),
      ...(expiresAt ? { expiresAt } : {}),
    };
  });
}

/**
 * What the session's paused reply waits for, from its stored state and its event log: the reply's
 * own asking or submitted calls, and the asks of the nested runs its calls are suspended on (the
 * newest REQUIRE_* of each nested reply whose call has no result since). Empty when nothing waits.
 */
export async function openAsks(
  backend: ServiceBackend,
  sessionId: string,
  state: AgentState,
): Promise<OpenAsk[]> {
  const reply = state.replyContext;
  if (!reply?.waitingFor) return [];
  const msg = state.context.findLast((m) => m.id === reply.replyId);
  const own = new Set(
    (msg?.content ?? []).flatMap((b) =>
      b.type === "tool_call" && (b.state === "asking" || b.state === "submitted") ? [b.id] : [],
    ),
  );
  const nested = new Set(Object.keys(reply.suspended ?? {}));
  const open = new Map<string, OpenAsk>();
  const events = await replyEvents(backend, sessionId, reply.replyId);
  for (const event of events) {
    if (event.type === "TOOL_RESULT_END") open.delete(`${event.replyId}/${event.toolCallId}`);
    const waits = event.source === undefined ? event.replyId === reply.replyId : nested.has(event.replyId);
    if (!waits) continue;
    for (const ask of asksOfEvent(event, sessionId)) {
      if (ask.source === undefined && !own.has(ask.call.id)) continue;
      open.set(`${ask.replyId}/${ask.call.id}`, ask);
    }
  }
  // a call whose ask the log no longer keeps (it keeps the newest events) is still asked from the state
  const logged = new Set([...open.values()].map((ask) => ask.call.id));
  for (const block of msg?.content ?? []) {
    if (block.type !== "tool_call" || !own.has(block.id) || logged.has(block.id)) continue;
    const kind = block.state === "asking" ? "confirm" : "external";
    open.set(`${reply.replyId}/${block.id}`, { kind, sessionId, replyId: reply.replyId, call: block });
  }
  return [...open.values()];
}

/** The logged events of top-level reply `replyId`, from its REPLY_START on. */
async function replyEvents(
  backend: ServiceBackend,
  sessionId: string,
  replyId: string,
): Promise<AgentEvent[]> {
  let events: AgentEvent[] | undefined;
  let after = Math.max(0, (await backend.events.firstSeq(sessionId)) - 1);
  for (;;) {
    const page = await backend.events.read(sessionId, after, PAGE);
    for (const { event } of page) {
      if (event.type === "REPLY_START" && event.source === undefined && event.replyId === replyId)
        events = [];
      events?.push(event);
    }
    if (page.length < PAGE) return events ?? [];
    after = page.at(-1)!.seq;
  }
}
