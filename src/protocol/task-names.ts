/*
 * The task list's names and statuses without its zod schema (task.ts), so a browser bundle that
 * folds task events (the console, the client) does not carry zod.
 */

/** Where a task stands. `blocked`: it cannot go on (a dependency, a question, a failure). */
export type TaskStatus = "pending" | "in_progress" | "completed" | "blocked";

export const TASK_STATUSES: readonly TaskStatus[] = ["pending", "in_progress", "completed", "blocked"];

/** The CUSTOM event name of a task change; its `value` is a `TaskUpdate`. */
export const TASK_UPDATED = "task_updated";
