import { z } from "zod";
import type { Middleware } from "../../src/agent/index.js";
import type { AgentEvent } from "../../src/event/index.js";
import { functionTool } from "../../src/tool/index.js";

export async function collect(stream: AsyncIterable<AgentEvent>): Promise<AgentEvent[]> {
  const events: AgentEvent[] = [];
  for await (const event of stream) events.push(event);
  return events;
}

/** Event types, with consecutive deltas of one kind collapsed to one entry, to keep order assertions readable. */
export function shape(events: AgentEvent[]): string[] {
  const out: string[] = [];
  for (const event of events) {
    if (event.type.endsWith("_DELTA") && out[out.length - 1] === event.type) continue;
    out.push(event.type);
  }
  return out;
}

export const weather = functionTool({
  name: "get_weather",
  description: "Weather for a city",
  input: z.object({ city: z.string() }),
  readOnly: true,
  execute: ({ city }) => `sunny in ${city}`,
});

export const time = functionTool({
  name: "get_time",
  description: "Time in a city",
  input: z.object({ city: z.string() }),
  readOnly: true,
  execute: ({ city }) => `noon in ${city}`,
});

/** A middleware whose onReply passes the reply through and emits a CUSTOM "hello" right after REPLY_START. */
export const announcer: Middleware = {
  name: "announce",
  async *onReply(input, ctx, next) {
    for await (const event of next(input)) {
      yield event;
      if (event.type === "REPLY_START") ctx.emit({ type: "CUSTOM", name: "hello", value: 1 });
    }
  },
};
