import type { AgentEvent } from "../../../event/index.js";
import type { LoggedEvent, ServiceBackend } from "../backend/types.js";

const PAGE = 1_000;

/** The metadata field that carries a request's `Idempotency-Key` on the first event its run logged. */
export const IDEMPOTENCY_FIELD = "idempotencyKey";

/** The first event a run started with `key` logged in this session, if the log still holds it. */
export async function keyedEvent(
  backend: ServiceBackend,
  sessionId: string,
  key: string,
): Promise<LoggedEvent | undefined> {
  let after = Math.max(0, (await backend.events.firstSeq(sessionId)) - 1);
  for (;;) {
    const page = await backend.events.read(sessionId, after, PAGE);
    const found = page.find((logged) => logged.event.metadata?.[IDEMPOTENCY_FIELD] === key);
    if (found || page.length < PAGE) return found;
    after = page.at(-1)!.seq;
  }
}

/** The run a repeated request gets: the first one's reply and place in the log; nothing new runs. */
export function replayedRun(
  sessionId: string,
  first: LoggedEvent,
): {
  handle: { sessionId: string; replyId: string; after: number; done: Promise<void> };
  abort(reason: string): void;
} {
  return {
    handle: { sessionId, replyId: first.event.replyId, after: first.seq - 1, done: Promise.resolve() },
    abort: () => {},
  };
}

/** `event` marked as the first of the run that `key` started (a copy; the agent's event is unchanged). */
export function keyed(event: AgentEvent, key: string): AgentEvent {
  return { ...event, metadata: { ...event.metadata, [IDEMPOTENCY_FIELD]: key } };
}
