import type { AgentEvent } from "../event/index.js";

/**
 * Who reads a reply's events. The run hands it the events of one step (one network read, one tool
 * result...), in order, already folded into the reply Msg. It returns a promise when the run must wait
 * before going on (a reader that pulls and has not asked for more yet), else undefined: a reader that
 * takes events as they come (`Agent.replyTo`) costs the run no await.
 */
export type ReplyReader = (events: readonly AgentEvent[]) => Promise<void> | undefined;

/** The reader of `Agent.replyTo`: each event to `onEvent`, as it is emitted. */
export function eventsTo(onEvent: (event: AgentEvent) => void): ReplyReader {
  return (events) => {
    for (let i = 0; i < events.length; i++) onEvent(events[i]!);
    return undefined;
  };
}
