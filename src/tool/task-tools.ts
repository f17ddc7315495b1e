import { z } from "zod";
import type { Task } from "../protocol/task.js";
import { functionTool } from "./function-tool.js";
import type { TaskBoard } from "./task-board.js";
import { ToolError } from "./tool-error.js";
import type { Tool, ToolContext } from "./types.js";

/** The names of the task tools, as `taskTools()` builds them. */
export const TASK_TOOL_NAMES = ["TaskCreate", "TaskGet", "TaskList", "TaskUpdate"] as const;

const TaskId = z.string().regex(/^task_[1-9][0-9]*$/, 'a task id looks like "task_1"');
const Status = z.enum(["pending", "in_progress", "completed", "blocked"]);
const Metadata = z.record(z.string(), z.unknown());

function boardOf(ctx: ToolContext): TaskBoard {
  if (!ctx.tasks)
    throw new ToolError("the task tools run inside an agent's reply (ToolContext.tasks is unset)");
  return ctx.tasks;
}

/** A task as the model reads it: the stored fields, and which of its dependencies are still open. */
function view(board: TaskBoard, task: Task) {
  const open = board.openDependencies(task);
  return { ...task, ...(open.length > 0 ? { blockedBy: open } : {}) };
}

// They only write the session's own task list (no file, process or outside system): read-only for
// the permission engine, so they run in every mode, explore and plan included.
const taskToolBase = { readOnly: true, concurrencySafe: false, pathsOf: () => [] as string[] };

/**
 * The task tools (AgentScope Python's TaskCreate / TaskGet / TaskList / TaskUpdate): the model
 * keeps a typed task list in the session state (`AgentState.tasks`), each change a CUSTOM
 * `task_updated` event, saved and restored with the session.
 */
export function taskTools(): Tool[] {
  return [
    functionTool({
      ...taskToolBase,
      name: "TaskCreate",
      description:
        "Adds a task to this session's task list (status pending). Use it to plan multi-step work: one task per step, " +
        "with the ids of the tasks that must be completed first in `dependencies`. Returns the task with its id.",
      input: z.object({
        subject: z.string().min(1).max(200).describe("A short imperative title, e.g. 'Run the tests'"),
        description: z.string().max(10_000).optional().describe("What done means, in full"),
        owner: z.string().min(1).max(200).optional().describe("Who works on it (an agent's name or label)"),
        dependencies: z.array(TaskId).max(100).optional().describe("Ids of tasks to complete first"),
        metadata: Metadata.optional(),
      }),
      execute: (input, ctx) => {
        const board = boardOf(ctx);
        return view(board, board.create(input));
      },
    }),
    functionTool({
      ...taskToolBase,
      concurrencySafe: true,
      name: "TaskGet",
      description: "Reads one task of this session's task list by its id.",
      input: z.object({ id: TaskId }),
      execute: ({ id }, ctx) => {
        const board = boardOf(ctx);
        return view(board, board.require(id));
      },
    }),
    functionTool({
      ...taskToolBase,
      concurrencySafe: true,
      name: "TaskList",
      description:
        "Lists this session's tasks (id, subject, status, owner, open dependencies), optionally only those with one status.",
      input: z.object({ status: Status.optional().describe("Only tasks with this status") }),
      execute: ({ status }, ctx) => {
        const board = boardOf(ctx);
        const tasks = board.list().filter((task) => status === undefined || task.status === status);
        return {
          tasks: tasks.map((task) => {
            const open = board.openDependencies(task);
            return {
              id: task.id,
              subject: task.subject,
              status: task.status,
              ...(task.owner !== undefined ? { owner: task.owner } : {}),
              ...(open.length > 0 ? { blockedBy: open } : {}),
            };
          }),
        };
      },
    }),
    functionTool({
      ...taskToolBase,
      name: "TaskUpdate",
      description:
        "Changes a task: its status (pending, in_progress, completed, blocked), subject, description, owner (null clears it), " +
        "dependencies (the whole new list) or metadata (merged; a key set to null is removed). A task cannot start or " +
        "complete before the tasks it depends on are completed.",
      input: z.object({
        id: TaskId,
        status: Status.optional(),
        subject: z.string().min(1).max(200).optional(),
        description: z.string().max(10_000).optional(),
        owner: z.string().min(1).max(200).nullable().optional(),
        dependencies: z.array(TaskId).max(100).optional(),
        metadata: Metadata.optional(),
      }),
      execute: ({ id, ...change }, ctx) => {
        const board = boardOf(ctx);
        return view(board, board.update(id, change));
      },
    }),
  ];
}
