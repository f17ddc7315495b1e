import type { AgentEvent } from "../../../event/index.js";
import type { SpawnHandle, SpawnRecord } from "../../../multiagent/index.js";
import type { ServiceRuntime } from "../runtime/service-runtime.js";
import { settleFromChild } from "./child-outcome.js";
import { RunEndWake } from "./run-end-wake.js";

/**
 * A spawned sub-agent as the service runs it: a run of its own session, under the service's lease,
 * on whichever replica holds it. `done` looks at the session's stored state (and lock) until the
 * record settles, so it works the same for a run started here, on another replica, or before a
 * restart; it looks again each time the session's run may have ended (`RunEndWake`: the service's
 * bus, a slow timer only as a fallback), never on a fast timer. While the spawning call waits
 * (`forward` set), the session's events after `firstReply.after` are followed and handed on.
 */
export class ChildRun implements SpawnHandle {
  readonly done: Promise<SpawnRecord>;
  forward: ((event: AgentEvent) => void) | undefined;
  readonly #stop = new AbortController();

  constructor(
    readonly record: SpawnRecord,
    private readonly runtime: ServiceRuntime,
    private readonly owner: string,
    readonly firstReply?: { replyId: string; source: string; after?: number },
  ) {
    this.done = this.#watch();
    if (firstReply) void this.#follow(firstReply.source, firstReply.after ?? 0);
  }

  cancel(reason: string): void {
    if (this.record.status !== "running") return;
    this.record.error = reason;
    this.runtime.interrupt(this.owner, this.record.sessionId, reason).catch(() => {
      // nothing to interrupt (it is between runs): its next check settles it
    });
  }

  async #watch(): Promise<SpawnRecord> {
    let wake: RunEndWake | undefined;
    try {
      wake = await this.#openWake();
      for (;;) {
        try {
          if (await settleFromChild(this.runtime.backend, this.record)) break;
        } catch {
          // a store hiccup: look again at the next wake-up
        }
        if (this.record.status !== "running") break;
        await wake.next();
      }
    } finally {
      wake?.close();
      this.#stop.abort();
      this.forward = undefined;
    }
    return this.record;
  }

  async #openWake(): Promise<RunEndWake> {
    for (;;) {
      try {
        return await RunEndWake.open(this.runtime.backend, this.record.sessionId);
      } catch {
        // the log is unreachable now: try again in a while
        await new Promise((resolve) => setTimeout(resolve, 1_000));
      }
    }
  }

  /** The session's events, for `forward`, until the record settles. */
  async #follow(source: string, after: number): Promise<void> {
    try {
      const items = await this.runtime.follow(this.owner, this.record.sessionId, {
        after,
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
