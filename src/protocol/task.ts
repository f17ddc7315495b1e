import { z } from "zod";

import type { TaskStatus } from "./task-names.js";

export { TASK_STATUSES, TASK_UPDATED, type TaskStatus } from "./task-names.js";

/**
 * One entry of a session's task list (`AgentState.tasks`): what the agent (or a sub-agent it
 * spawned, named by `owner`) works on. Plain JSON; the task tools write it and every change is a
 * CUSTOM `task_updated` event carrying the whole task.
 */
export interface Task {
  /** `task_1`, `task_2`, ... in the order they were created; never reused in a session. */
  id: string;
  /** A short imperative title ("Run the tests"). */
  subject: string;
  /** What done means, in full. */
  description: string;
  status: TaskStatus;
  /** Who works on it: the agent's name, or the label of a spawned sub-agent. Absent: nobody yet. */
  owner?: string;
  /** Ids of the tasks that must be completed first. */
  dependencies: string[];
  /** Anything else a caller wants to keep with the task (JSON). */
  metadata?: Record<string, unknown>;
  createdAt: string;
  updatedAt: string;
}

export const TASK_ID_PATTERN = /^task_[1-9][0-9]*$/;

export const TaskSchema = z.object({
  id: z.string().regex(TASK_ID_PATTERN, 'must look like "task_1"'),
  subject: z.string().min(1).max(200),
  description: z.string().max(10_000),
  status: z.enum(["pending", "in_progress", "completed", "blocked"]),
  owner: z.string().min(1).max(200).optional(),
  dependencies: z.array(z.string().regex(TASK_ID_PATTERN, 'must look like "task_1"')),
  metadata: z.record(z.string(), z.unknown()).optional(),
  createdAt: z.string().min(1),
  updatedAt: z.string().min(1),
});

/** What a `task_updated` event carries: the task as it is after the change. */
export interface TaskUpdate {
  change: "created" | "updated";
  task: Task;
}
