import type { ServiceBackend } from "../backend/types.js";
import { Follower, type FollowItem, type FollowOptions, type FollowSink } from "./follower.js";

/**
 * The sink behind `followerItems`: holds what the follower pushed until the consumer takes it, and
 * asks the follower to wait after each push (so it runs only as fast as the consumer pulls).
 */
class PulledItems implements FollowSink {
  readonly queue: FollowItem[] = [];
  ended = false;
  error: unknown;
  #wake: (() => void) | undefined;

  push(item: FollowItem): boolean {
    this.queue.push(item);
    this.#fire();
    return false;
  }

  end(error?: unknown): void {
    this.ended = true;
    this.error = error;
    this.#fire();
  }

  /** Resolves once there is an item to take or the follower has ended. */
  arrival(): Promise<void> {
    return new Promise((resolve) => {
      this.#wake = resolve;
    });
  }

  #fire(): void {
    const wake = this.#wake;
    this.#wake = undefined;
    wake?.();
  }
}

/**
 * A follower as an async generator, for `for await` consumers: the items in order, ending when the
 * follower ends (throwing its error, if it failed). Returning early stops the follower.
 */
export async function* followerItems(follower: Follower): AsyncGenerator<FollowItem> {
  const pulled = new PulledItems();
  follower.start(pulled);
  try {
    for (;;) {
      const item = pulled.queue.shift();
      if (item !== undefined) {
        yield item;
        if (pulled.queue.length === 0) follower.resume();
        continue;
      }
      if (pulled.ended) break;
      await pulled.arrival();
    }
    if (pulled.error !== undefined) throw pulled.error;
  } finally {
    follower.stop();
  }
}

/**
 * Streams a session's event log from `after` as an async generator (see Follower for what it
 * delivers, and in what order).
 */
export function followEvents(
  backend: ServiceBackend,
  sessionId: string,
  options: FollowOptions,
): AsyncGenerator<FollowItem> {
  return followerItems(new Follower(backend, sessionId, options));
}
