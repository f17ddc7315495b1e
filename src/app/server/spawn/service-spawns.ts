import { SPAWNS_KEY, type SpawnRecord } from "../../../multiagent/index.js";
import { RequestError } from "../request-error.js";
import type { RuntimeLink } from "../runtime/runtime-links.js";
import type { ServiceRuntime } from "../runtime/service-runtime.js";
import { settleFromChild } from "./child-outcome.js";
import { PARENT_KEY, parentOfSession } from "./child-session.js";
import type { ServiceSpawner } from "./service-spawner.js";

/** How often, and how long, a sub-agent's end waits for its parent's reply to free the session. */
const RETRY_MS = 250;
const GIVE_UP_AFTER = 2400;

/**
 * The service's sub-agent sessions, across every agent that spawns: the runtime attaches it, tells it
 * when a run ends, and asks it whether a recovered session resumes (a sub-agent's always does: nobody
 * else would continue it). When a sub-agent's run ends, its outcome goes to the parent: if the
 * parent's reply still runs, its next reasoning step reads it (the spawn middleware); if that reply
 * has ended (and the parent's spawner has `followUp`), a follow-up reply starts in the parent session.
 */
export class ServiceSpawns implements RuntimeLink<ServiceRuntime> {
  #runtime: ServiceRuntime | undefined;
  /** The spawner of each spawning agent, by agent name. */
  readonly #spawners = new Map<string, ServiceSpawner>();

  get runtime(): ServiceRuntime | undefined {
    return this.#runtime;
  }

  add(agent: string, spawner: ServiceSpawner): void {
    this.#spawners.set(agent, spawner);
  }

  attach(runtime: ServiceRuntime): void {
    this.#runtime = runtime;
  }

  async resumes(sessionId: string): Promise<boolean> {
    if (!parentOfSession(sessionId) || !this.#runtime) return false;
    const stored = await this.#runtime.backend.store.load(sessionId);
    return stored?.state.toolContext[PARENT_KEY] !== undefined;
  }

  runEnded(sessionId: string): void {
    const parent = parentOfSession(sessionId);
    if (!parent) return;
    void this.#deliver(parent.sessionId, parent.subagentId).catch(() => {
      // the parent's session is unreachable now: its next reasoning step reads the outcome anyway
    });
  }

  /** Starts the parent's follow-up reply once the sub-agent has ended and its outcome is not yet read. */
  async #deliver(parentId: string, subagentId: string): Promise<void> {
    const runtime = this.#runtime;
    if (!runtime) return;
    const parent = await runtime.backend.sessions.get(parentId);
    if (!parent || !this.#spawners.get(parent.agent)?.followUp) return;
    for (let attempt = 0; attempt < GIVE_UP_AFTER; attempt++) {
      if (!(await runtime.backend.locks.isHeld(parentId))) {
        const stored = await runtime.backend.store.load(parentId);
        const records = stored?.state.toolContext[SPAWNS_KEY] as SpawnRecord[] | undefined;
        const record = records?.find((r) => r.id === subagentId);
        if (!stored || !record || record.delivered) return;
        // A paused parent reads it when it is answered; a sub-agent still going (an exposed one
        // waiting for its user, a cut-off one about to resume) is not done.
        if (stored.state.replyContext?.waitingFor) return;
        if (record.status === "running" && !(await settleFromChild(runtime.backend, { ...record }))) return;
        try {
          await runtime.startReply(parent.owner, parentId, undefined);
          return;
        } catch (error) {
          if (!RequestError.isInstance(error) || error.info.type !== "run_in_progress") throw error;
        }
      }
      await new Promise((resolve) => setTimeout(resolve, RETRY_MS));
    }
  }
}
