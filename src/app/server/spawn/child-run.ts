import type { AgentEvent } from "../../../event/index.js";
import type { SpawnHandle, SpawnRecord } from "../../../multiagent/index.js";
import type { ServiceRuntime } from "../runtime/service-runtime.js";
import { settleFromChild } from "./child-outcome.js";

/** How often a waiting spawn looks at its sub-agent's session (state and lock). */
const CHECK_EVERY_MS = 100;

/**
 * A spawned sub-agent as the service runs it: a run of its own session, under the service's lease,
 * on whichever replica holds it. `done` watches the session's stored state until the record settles,
 * so it works the same for a run started here, on another replica, or before a restart. While the
 * spawning call waits (`forward` set), the session's events are followed and handed on.
 */
export class ChildRun implements SpawnHandle {
  readonly done: Promise<SpawnRecord>;
  forward: ((event: AgentEvent) => void) | undefined;
  readonly #stop = new AbortController();

  constructor(
    readonly record: SpawnRecord,
    private readonly runtime: ServiceRuntime,
    private readonly owner: string,
    readonly firstReply?: { replyId: string; source: string },
  ) {
    this.done = this.#watch();
    if (firstReply) void this.#follow(firstReply.source);
  }

  cancel(reason: string): void {
    if (this.record.status !== "running") return;
    this.record.error = reason;
    this.runtime.interrupt(this.owner, this.record.sessionId, reason).catch(() => {
      // nothing to interrupt (it is between runs): its next check settles it
    });
  }

  async #watch(): Promise<SpawnRecord> {
    try {
      for (;;) {
        try {
          if (await settleFromChild(this.runtime.backend, this.record)) break;
        } catch {
          // a store hiccup: look again
        }
        if (this.record.status !== "running") break;
        await new Promise((resolve) => setTimeout(resolve, CHECK_EVERY_MS));
      }
    } finally {
      this.#stop.abort();
      this.forward = undefined;
    }
    return this.record;
  }

  /** The session's events, for `forward`, until the record settles. */
  async #follow(source: string): Promise<void> {
    try {
      const items = await this.runtime.follow(this.owner, this.record.sessionId, {
        signal: this.#stop.signal,
      });
      for await (const item of items) {
        if (item.kind !== "event") continue;
        const forward = this.forward;
        if (forward)
          forward({ ...item.event, source: item.event.source ? `${source}/${item.event.source}` : source });
      }
    } catch {
      // following is best effort: the outcome comes from the stored state
    }
  }
}
