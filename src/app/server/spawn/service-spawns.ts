import type { RuntimeLink } from "../runtime/runtime-links.js";
import type { ServiceRuntime } from "../runtime/service-runtime.js";
import type { SweepJob } from "../runtime/sweeper.js";
import { PARENT_KEY, parentOfSession } from "./child-session.js";
import { deliverOutcome } from "./deliver-outcome.js";
import type { ServiceSpawner } from "./service-spawner.js";
import { type PendingDelivery, SpawnDeliveries } from "./spawn-deliveries.js";

/**
 * The service's sub-agent sessions, across every agent that spawns: the runtime attaches it, tells it
 * when a run ends, and asks it whether a recovered session resumes (a sub-agent's always does: nobody
 * else would continue it). When a sub-agent's run ends, its outcome goes to the parent: if the
 * parent's reply still runs, its next reasoning step reads it (the spawn middleware); if that reply
 * has ended (and the parent's spawner has `followUp`), a follow-up reply starts in the parent session.
 * A parent found busy is tried again when its run ends here; the outbox (`SpawnDeliveries`), swept on
 * every replica, completes a delivery whose process died, or whose parent ran elsewhere.
 */
export class ServiceSpawns implements RuntimeLink<ServiceRuntime> {
  #runtime: ServiceRuntime | undefined;
  #deliveries: SpawnDeliveries | undefined;
  /** The spawner of each spawning agent, by agent name. */
  readonly #spawners = new Map<string, ServiceSpawner>();
  /** Deliveries found busy here, by parent session: tried again when that session's run ends here. */
  readonly #busy = new Map<string, Set<string>>();

  get runtime(): ServiceRuntime | undefined {
    return this.#runtime;
  }

  /** The outbox, once attached. */
  get deliveries(): SpawnDeliveries | undefined {
    return this.#deliveries;
  }

  add(agent: string, spawner: ServiceSpawner): void {
    this.#spawners.set(agent, spawner);
  }

  attach(runtime: ServiceRuntime): void {
    this.#runtime = runtime;
    this.#deliveries = new SpawnDeliveries(runtime.backend);
  }

  sweepJobs(): SweepJob[] {
    return [{ name: "deliver sub-agent outcomes", run: () => this.#sweep() }];
  }

  async resumes(sessionId: string): Promise<boolean> {
    if (!parentOfSession(sessionId) || !this.#runtime) return false;
    const stored = await this.#runtime.backend.store.load(sessionId);
    return stored?.state.toolContext[PARENT_KEY] !== undefined;
  }

  runEnded(sessionId: string): void {
    const parent = parentOfSession(sessionId);
    if (parent) this.#attempt({ parentSessionId: parent.sessionId, childSessionId: sessionId });
    const busy = this.#busy.get(sessionId);
    if (!busy) return;
    this.#busy.delete(sessionId);
    for (const child of busy) this.#attempt({ parentSessionId: sessionId, childSessionId: child });
  }

  #attempt(entry: PendingDelivery): void {
    void this.#deliver(entry).catch(() => {
      // the sessions are unreachable now: the outbox's sweep tries again
    });
  }

  async #deliver(entry: PendingDelivery): Promise<void> {
    const runtime = this.#runtime;
    if (!runtime) return;
    const outcome = await deliverOutcome(
      runtime,
      (agent) => this.#spawners.get(agent)?.followUp === true,
      entry,
    );
    if (outcome === "done") await this.#deliveries?.done(entry);
    else if (outcome === "busy") {
      const children = this.#busy.get(entry.parentSessionId) ?? new Set<string>();
      this.#busy.set(entry.parentSessionId, children);
      children.add(entry.childSessionId);
    }
  }

  /** Every delivery the outbox holds open, tried once (one after the other). */
  async #sweep(): Promise<void> {
    const open = (await this.#deliveries?.open()) ?? [];
    for (const entry of open) await this.#deliver(entry).catch(() => {});
  }
}
