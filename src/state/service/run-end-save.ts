import type { AgentEvent } from "../../event/index.js";
import type { LoggedEvent, RunCheckpoint, RunEnd, RunEndResult, RunLease } from "./service-backend.js";

/**
 * A run's end or a checkpoint (no end events), as a backend writes either in one step. `lease`
 * fences the write (nothing is written unless it holds the session); `releases` says whether the
 * write frees it too (a run's end) or keeps it (a checkpoint).
 */
export interface RunWrite {
  sessionId: string;
  events: AgentEvent[];
  save?: RunEnd["save"];
  endEvents: AgentEvent[];
  lease?: RunLease;
  releases: boolean;
}

export const checkpointWrite = (checkpoint: RunCheckpoint): RunWrite => ({
  ...checkpoint,
  endEvents: [],
  releases: false,
});

export const runEndWrite = (end: RunEnd): RunWrite => ({ ...end, releases: true });

/** All of a write's events in order (the run's, then its end events), and their JSON. */
export function writtenEvents(run: RunWrite): { events: AgentEvent[]; json: string[] } {
  const events = [...run.events, ...run.endEvents];
  return { events, json: events.map((event) => JSON.stringify(event)) };
}

/**
 * A run end's or checkpoint's save, made ready (encoded) before its round trip. A state no store can
 * hold is the `saveError`: the events are logged all the same.
 */
export async function prepareSave<Prepared>(
  toSave: RunEnd["save"],
  prepare: (save: NonNullable<RunEnd["save"]>) => Prepared | Promise<Prepared>,
): Promise<{ save?: Prepared; saveError?: Error }> {
  if (!toSave) return {};
  try {
    return { save: await prepare(toSave) };
  } catch (error) {
    return { saveError: error as Error };
  }
}

/**
 * What `endRun` and `checkpoint` answer: the events as logged, and the version the save wrote
 * (`version()`, which throws the StateConflictError of a lost compare-and-set) or why it failed.
 */
export async function runEndResult(
  logged: LoggedEvent[],
  version: (() => number | Promise<number>) | undefined,
  saveError: Error | undefined,
): Promise<RunEndResult> {
  let saved: number | undefined;
  if (version) {
    try {
      saved = await version();
    } catch (error) {
      saveError = error as Error;
    }
  }
  return { logged, ...(saved !== undefined ? { version: saved } : {}), ...(saveError ? { saveError } : {}) };
}
