import { createParser } from "eventsource-parser";
import type { AgentEvent } from "../../event/index.js";

/** One event read from the service's SSE stream, with its per-session id. */
export interface StreamedEvent {
  seq: number;
  event: AgentEvent;
}

/** Reads AgentEvent frames from an SSE response body (comments and `gap` frames are skipped). */
export async function* readEventStream(response: Response): AsyncGenerator<StreamedEvent> {
  if (!response.body) return;
  const queue: StreamedEvent[] = [];
  const parser = createParser({
    onEvent(message) {
      if (message.id === undefined || message.event === "gap") return;
      queue.push({ seq: Number(message.id), event: JSON.parse(message.data) as AgentEvent });
    },
  });
  const decoder = new TextDecoder();
  const reader = response.body.getReader();
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      parser.feed(decoder.decode(value, { stream: true }));
      while (queue.length > 0) yield queue.shift()!;
    }
  } finally {
    await reader.cancel().catch(() => {});
  }
}

/** Events after which a run stops: it ended or waits for an answer. */
export function endsRun(event: AgentEvent): boolean {
  return (
    event.type === "REPLY_END" ||
    event.type === "REQUIRE_USER_CONFIRM" ||
    event.type === "REQUIRE_EXTERNAL_EXECUTION"
  );
}
