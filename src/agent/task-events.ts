import { TASK_UPDATED } from "../protocol/task.js";
import { TaskBoard } from "../tool/index.js";
import type { ReplyRun } from "./reply-run.js";

/** The session's task list for a tool of this reply: each change is a CUSTOM `task_updated` event of the reply. */
export function taskBoardOf(run: ReplyRun): TaskBoard {
  return new TaskBoard(run.state.tasks, (update) =>
    run.emit("CUSTOM", { name: TASK_UPDATED, value: update }),
  );
}
