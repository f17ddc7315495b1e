import type { Task, TaskUpdate } from "../protocol/task.js";
import { TASK_UPDATED } from "../protocol/task-names.js";
import type { AgentEvent, CustomEvent } from "./types.js";

/** A CUSTOM `task_updated` event: a task of the session was created or changed. */
export type TaskUpdatedEvent = CustomEvent & { name: typeof TASK_UPDATED; value: TaskUpdate };

export function isTaskEvent(event: AgentEvent): event is TaskUpdatedEvent {
  return event.type === "CUSTOM" && event.name === TASK_UPDATED;
}

/**
 * Folds one event into a task list and returns the new list (`tasks` is not changed): a
 * `task_updated` event puts its task in place of the one with its id, or appends it; any other
 * event returns `tasks` itself. Folding a session's events from an empty list gives its
 * `AgentState.tasks`. `applyEvent` leaves the reply Msg as it is for these events: the task list
 * is session state, not part of the reply.
 */
export function applyTaskEvent(tasks: readonly Task[], event: AgentEvent): readonly Task[] {
  if (!isTaskEvent(event)) return tasks;
  const { task } = event.value;
  const index = tasks.findIndex((t) => t.id === task.id);
  if (index < 0) return [...tasks, task];
  const next = tasks.slice();
  next[index] = task;
  return next;
}
