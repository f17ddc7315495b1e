import type { AgentEvent } from "../event/index.js";
import { AgentScopeError, type ErrorType } from "../message/index.js";
import { EventBatches, type EventStep } from "./event-batches.js";
import type { ReplyReader } from "./reply-reader.js";

/** Thrown into a run, at the step it waits on, when the reader of `pullEvents` stops reading. */
export class ReaderLeft extends AgentScopeError {
  static override readonly errorType: ErrorType = "aborted";
  constructor() {
    super("the reader stopped reading the reply");
    this.name = "ReaderLeft";
  }
}

/**
 * A run that pushes its events (`run` starts it with a reader) as a stream the caller pulls, one event
 * per `next()`: the run starts on the first `next()`, and each step it hands over waits until the
 * caller has taken those events and asked for more, so the run is never ahead of its reader. The
 * events of one step are handed out together (see EventBatches). Breaking out of a `for await`
 * stops the run where it waits (its `finally` blocks run) before `return()` resolves.
 */
export function pullEvents(run: (reader: ReplyReader) => Promise<void>): AsyncGenerator<AgentEvent> {
  // An AsyncGenerator in all but its prototype (and `Symbol.asyncDispose`, added at run time).
  return new EventBatches(stepsOf(run)) as unknown as AsyncGenerator<AgentEvent>;
}

async function* stepsOf(run: (reader: ReplyReader) => Promise<void>): AsyncGenerator<EventStep> {
  let handed: readonly AgentEvent[] | undefined;
  let taken: { resolve: () => void; reject: (error: unknown) => void } | undefined;
  let arrived: (() => void) | undefined;
  let ended = false;
  let failure: { error: unknown } | undefined;
  const signalArrival = () => {
    const resolve = arrived;
    arrived = undefined;
    resolve?.();
  };
  const reader: ReplyReader = (events) => {
    handed = events;
    const waiting = new Promise<void>((resolve, reject) => {
      taken = { resolve, reject };
    });
    signalArrival();
    return waiting;
  };
  const finished = run(reader).then(
    () => {
      ended = true;
      signalArrival();
    },
    (error: unknown) => {
      ended = true;
      failure = { error };
      signalArrival();
    },
  );
  try {
    while (true) {
      if (handed === undefined && !ended) {
        await new Promise<void>((resolve) => {
          arrived = resolve;
        });
      }
      if (handed !== undefined) {
        const events = handed;
        handed = undefined;
        yield events.length === 1 ? events[0]! : events;
        const reading = taken!;
        taken = undefined;
        reading.resolve();
        continue;
      }
      if (failure && !(failure.error instanceof ReaderLeft)) throw failure.error;
      return;
    }
  } finally {
    const reading = taken;
    if (!ended && reading) {
      reading.reject(new ReaderLeft());
      await finished;
    }
  }
}
