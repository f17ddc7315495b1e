import type { Socket } from "node:net";
import type { StreamSlot } from "../runtime/stream-slots.js";
import { readSendQueues, socketInode } from "./send-queues.js";

interface Watched {
  socket: Socket;
  inode: number;
  drop: () => void;
  /** Bytes the peer had acknowledged at the last look. */
  acked: number;
  /** Since when bytes have waited in the kernel with none acknowledged; undefined: not stalled. */
  stalledSince: number | undefined;
}

/**
 * The write timeout where Node cannot see it: a client that stops reading first fills the kernel's
 * buffers (megabytes per connection), and until those are full every write succeeds. On Linux the
 * watch reads every watched socket's send queue from /proc/net/tcp (one read of the table for all of
 * them, every quarter of the write timeout up to 10 s, only while streams are open) and drops a connection whose
 * peer has acknowledged nothing for the write timeout while bytes waited for it. Elsewhere it does
 * nothing (StallWatch still drops a stream once Node's own buffer is full).
 */
class PeerWatch {
  readonly #watched = new Set<Watched>();
  #timer: ReturnType<typeof setInterval> | undefined;
  #reading = false;
  #unsupported = false;

  constructor(private readonly writeTimeoutMs: number) {}

  watch(socket: Socket, drop: () => void): () => void {
    const inode = this.#unsupported ? undefined : socketInode(socket);
    if (inode === undefined) return () => {};
    const watched: Watched = { socket, inode, drop, acked: 0, stalledSince: undefined };
    this.#watched.add(watched);
    this.#timer ??= setInterval(() => void this.#look(), lookEveryMs(this.writeTimeoutMs));
    this.#timer.unref?.();
    return () => {
      this.#watched.delete(watched);
      if (this.#watched.size === 0) this.#stop();
    };
  }

  async #look(): Promise<void> {
    if (this.#reading) return;
    this.#reading = true;
    try {
      const queues = await readSendQueues();
      if (queues === undefined) {
        this.#unsupported = true;
        this.#watched.clear();
        this.#stop();
        return;
      }
      const now = Date.now();
      for (const watched of this.#watched) this.#judge(watched, queues.get(watched.inode), now);
    } finally {
      this.#reading = false;
    }
  }

  #judge(watched: Watched, queued: number | undefined, now: number): void {
    const { socket } = watched;
    if (queued === undefined || queued === 0 || socket.destroyed) {
      watched.stalledSince = undefined;
      return;
    }
    // What the kernel was given (Node's own buffer aside), less what still waits there: acknowledged.
    const acked = socket.bytesWritten - socket.writableLength - queued;
    if (acked > watched.acked || watched.stalledSince === undefined) {
      watched.acked = Math.max(acked, watched.acked);
      watched.stalledSince = now;
      return;
    }
    if (now - watched.stalledSince >= this.writeTimeoutMs) {
      this.#watched.delete(watched);
      watched.drop();
    }
  }

  #stop(): void {
    clearInterval(this.#timer);
    this.#timer = undefined;
  }
}

/** How often the send queues are read: a quarter of the write timeout, 10 ms to 10 s. */
function lookEveryMs(writeTimeoutMs: number): number {
  return Math.min(10_000, Math.max(10, Math.floor(writeTimeoutMs / 4)));
}

/** One watch per runtime (its slots share one clock). */
const watches = new WeakMap<object, PeerWatch>();

/** Watches `socket` for the slot's write timeout in the kernel (see PeerWatch); returns the unwatch. */
export function watchPeer(slot: StreamSlot, socket: Socket | null | undefined, drop: () => void): () => void {
  if (!socket) return () => {};
  let watch = watches.get(slot.stalls);
  if (!watch) {
    watch = new PeerWatch(slot.writeTimeoutMs);
    watches.set(slot.stalls, watch);
  }
  return watch.watch(socket, drop);
}
