import { newEventId, nowIso } from "../message/index.js";
import type { AgentEventType, EventInit, EventOfType } from "./types.js";

/** Builds an event of `type`, filling in a fresh id and timestamp unless given. */
export function createEvent<T extends AgentEventType>(type: T, init: EventInit<T>): EventOfType<T> {
  return { id: newEventId(), createdAt: nowIso(), ...init, type } as EventOfType<T>;
}

/** Input event constructors (what a UI sends back to a paused reply). */
export const userConfirmResult = (init: EventInit<"USER_CONFIRM_RESULT">) =>
  createEvent("USER_CONFIRM_RESULT", init);
export const externalExecutionResult = (init: EventInit<"EXTERNAL_EXECUTION_RESULT">) =>
  createEvent("EXTERNAL_EXECUTION_RESULT", init);
export const userInterrupt = (init: EventInit<"USER_INTERRUPT">) => createEvent("USER_INTERRUPT", init);
