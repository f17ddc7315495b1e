import type { RunStarted } from "../reply-types.js";
import { answer } from "../route.js";

/** What a route that starts or continues a run answers (replies, confirm, external results, edit). */
export const runStarted = answer<RunStarted>(
  202,
  "Accepted (JSON): `{ sessionId, replyId, after, events }`; follow `events` for the run's events. With `Accept: text/event-stream`: 200 and the run's events as SSE (`id:` per-session event id, `event:` type, `data:` AgentEvent JSON) until it ends or pauses.",
  "json-or-sse",
);

/** The refusal of a route that starts a run when a limit is reached. */
export const runLimit = [
  { status: 429 as const, description: "the server's or the user's run limit (Retry-After)" },
];
