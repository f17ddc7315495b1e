import type { AgentEvent } from "../event/index.js";

/** What a run's inner generator yields: one event, or the events of one network read, in order. */
export type EventStep = AgentEvent | readonly AgentEvent[];

/**
 * The reply's event stream, one event per `next()`, over a generator that may yield the events of a
 * whole network read at once. An event of a batch already read is answered with a resolved promise:
 * no generator resume and suspend per event, which at thousands of deltas a second is most of what the
 * stream itself costs. Breaking out of a `for await` (`return`) and `throw` reach the generator as
 * before; events of a batch not yet taken are dropped, as events not yet yielded were.
 */
export class EventBatches implements AsyncIterableIterator<AgentEvent> {
  readonly #steps: AsyncGenerator<EventStep>;
  #batch: readonly AgentEvent[] = [];
  #next = 0;
  /** A `next()` waiting on the generator: later calls queue behind it, so order is kept. */
  #pulling: Promise<IteratorResult<AgentEvent>> | undefined;

  constructor(steps: AsyncGenerator<EventStep>) {
    this.#steps = steps;
  }

  next(): Promise<IteratorResult<AgentEvent>> {
    if (this.#pulling) return this.#pulling.then(() => this.next());
    if (this.#next < this.#batch.length) {
      const value = this.#batch[this.#next]!;
      this.#next += 1;
      return Promise.resolve({ value, done: false });
    }
    const pulling = this.#steps.next().then(this.#take, this.#fail);
    this.#pulling = pulling;
    return pulling;
  }

  readonly #take = (step: IteratorResult<EventStep>): IteratorResult<AgentEvent> => {
    this.#pulling = undefined;
    if (step.done) return { value: undefined, done: true };
    const value = step.value;
    if (!Array.isArray(value)) return { value: value as AgentEvent, done: false };
    this.#batch = value;
    this.#next = 1;
    return { value: value[0] as AgentEvent, done: false };
  };

  readonly #fail = (error: unknown): never => {
    this.#pulling = undefined;
    throw error;
  };

  /** Ends the run; called while a `next()` waits, it ends after it, so that batch is dropped too. */
  return(): Promise<IteratorResult<AgentEvent>> {
    const settled = () => this.return();
    if (this.#pulling) return this.#pulling.then(settled, settled);
    this.#batch = [];
    return this.#steps.return(undefined).then(() => ({ value: undefined, done: true }));
  }

  throw(error: unknown): Promise<IteratorResult<AgentEvent>> {
    const settled = () => this.throw(error);
    if (this.#pulling) return this.#pulling.then(settled, settled);
    this.#batch = [];
    return this.#steps.throw(error).then(this.#take, this.#fail);
  }

  [Symbol.asyncIterator](): this {
    return this;
  }
}

/**
 * `await using stream = agent.replyStream()` ends the run like `return()`, as it does for a native
 * async generator, where the runtime has `Symbol.asyncDispose` (Node 20.4+; the type is left out so
 * the declarations compile against libs with and without `esnext.disposable`).
 */
const asyncDispose = (Symbol as { asyncDispose?: symbol }).asyncDispose;
if (asyncDispose !== undefined) {
  Object.defineProperty(EventBatches.prototype, asyncDispose, {
    value(this: EventBatches): Promise<void> {
      return this.return().then(() => undefined);
    },
    configurable: true,
    writable: true,
  });
}
