import type { ServerResponse } from "node:http";
import type { Socket } from "node:net";
import type { ClockWaiter } from "../runtime/follow-clock.js";
import type { StreamSlot } from "../runtime/stream-slots.js";

/**
 * The write timeout of one SSE response: armed when the socket's buffer is full (the stream waits
 * for "drain"), disarmed when it drains. If no drain comes within the slot's `writeTimeoutMs`, the
 * client has taken nothing in that time (a reader that stopped reading, a peer that is gone): the
 * connection is reset, which frees its buffers (in the process and the kernel's) and its slot.
 * All stalled streams of a runtime share the slot's clock: one timer, nothing per healthy stream.
 */
export class StallWatch implements ClockWaiter {
  due = 0;
  #armed = false;

  constructor(
    private readonly out: ServerResponse,
    private readonly slot: StreamSlot,
  ) {}

  arm(): void {
    if (this.#armed || this.out.destroyed) return;
    this.#armed = true;
    this.due = Date.now() + this.slot.writeTimeoutMs;
    this.slot.stalls.add(this);
  }

  disarm(): void {
    if (!this.#armed) return;
    this.#armed = false;
    this.slot.stalls.delete(this);
  }

  /** The clock: the timeout has passed (the clock has let go of this waiter already). */
  fire(): void {
    if (!this.#armed) return;
    this.#armed = false;
    // No drain since it was armed, and bytes still wait (also after the response ended, when Node no
    // longer says it needs a drain).
    if (!this.out.writableNeedDrain && this.out.writableLength === 0) return;
    if (this.out.socket) dropConnection(this.out.socket);
    else this.out.destroy();
  }
}

/**
 * Drops a connection whose peer takes nothing: with a reset (RST), so the kernel frees the unsent
 * bytes it holds for it at once (a plain close would keep them, trying to deliver them to a peer
 * that does not read). The client sees the connection reset and reconnects.
 */
export function dropConnection(socket: Socket | null | undefined): void {
  if (!socket || socket.destroyed) return;
  if (typeof socket.resetAndDestroy === "function") socket.resetAndDestroy();
  else socket.destroy();
}
