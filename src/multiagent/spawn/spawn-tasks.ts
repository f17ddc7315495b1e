import type { TaskBoard } from "../../tool/index.js";
import { ToolError } from "../../tool/index.js";
import type { SpawnRecord } from "./spawned-run.js";

/**
 * Checks that a task can be handed to a sub-agent: it exists, is not completed, and the tasks it
 * depends on are. Throws a ToolError the model reads otherwise.
 */
export function checkAssignable(board: TaskBoard | undefined, taskId: string): void {
  if (!board) throw new ToolError("task_id needs the session's task list (this host has none)");
  const task = board.require(taskId);
  if (task.status === "completed") throw new ToolError(`task "${taskId}" is already completed`);
  const open = board.openDependencies(task);
  if (open.length > 0) {
    throw new ToolError(`task "${taskId}" depends on tasks that are not completed: ${open.join(", ")}`);
  }
}

/** The sub-agent takes its task: owner = its label, status in_progress. */
export function assignTask(board: TaskBoard, record: SpawnRecord): void {
  if (record.taskId) board.update(record.taskId, { owner: record.label, status: "in_progress" });
}

/**
 * When the outcome of a sub-agent reaches its parent, its task follows: completed with it, blocked
 * when it failed, was cancelled, paused or lost. A task someone else took over since is left alone.
 */
export function settleTask(board: TaskBoard | undefined, record: SpawnRecord): void {
  if (!board || !record.taskId || record.status === "running") return;
  const task = board.get(record.taskId);
  if (!task || task.owner !== record.label || task.status !== "in_progress") return;
  board.update(task.id, { status: record.status === "completed" ? "completed" : "blocked" });
}
