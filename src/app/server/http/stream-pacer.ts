import type { ClockWaiter } from "../runtime/follow-clock.js";
import type { StreamSlot } from "../runtime/stream-slots.js";

/**
 * Backpressure and the write timeout for a `ReadableStream` body that is pushed to (`enqueue`)
 * rather than pulled from, such as the AG-UI stream. Make the stream with `strategy()` (its queue
 * holds up to the slot's `maxUnsentBytes`) and call `pulled()` from its `pull`; after each write,
 * `await ready(controller)`: it resolves at once while the queue has room, else once the reader takes
 * more. A reader that takes nothing for the slot's `writeTimeoutMs` gets `onStall` (drop the
 * connection), and `ready` resolves so the writer can end.
 */
export class StreamPacer implements ClockWaiter {
  due = 0;
  #wake: (() => void) | undefined;

  constructor(
    private readonly slot: StreamSlot,
    private readonly onStall: () => void,
  ) {}

  strategy(): QueuingStrategy<Uint8Array> {
    return new ByteLengthQueuingStrategy({ highWaterMark: this.slot.maxUnsentBytes });
  }

  ready(controller: ReadableStreamDefaultController<Uint8Array>): Promise<void> | undefined {
    if (this.#wake !== undefined || (controller.desiredSize ?? 1) > 0) return undefined;
    return new Promise((resolve) => {
      this.#wake = resolve;
      this.due = Date.now() + this.slot.writeTimeoutMs;
      this.slot.stalls.add(this);
    });
  }

  /** The stream's `pull` (or its `cancel`): the reader took what was queued, or is gone. */
  pulled(): void {
    const wake = this.#wake;
    if (wake === undefined) return;
    this.#wake = undefined;
    this.slot.stalls.delete(this);
    wake();
  }

  /** The clock: nothing was taken within the write timeout. */
  fire(): void {
    const wake = this.#wake;
    if (wake === undefined) return;
    this.#wake = undefined;
    this.onStall();
    wake();
  }
}
