export type { Task, TaskStatus, TaskUpdate } from "../protocol/task.js";
export { TASK_STATUSES, TASK_UPDATED, TaskSchema } from "../protocol/task.js";
// The fold lives apart from the schema so browser bundles import it without zod.
export { applyTaskEvent, isTaskEvent, type TaskUpdatedEvent } from "./task-fold.js";
