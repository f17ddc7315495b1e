import type { Task, TaskStatus } from "../../../event/task-events.js";
import { h } from "./dom.js";

const STATUS_TEXT: Record<TaskStatus, string> = {
  pending: "pending",
  in_progress: "in progress",
  completed: "completed",
  blocked: "blocked",
};
const STATUS_MARK: Record<TaskStatus, string> = {
  pending: "○",
  in_progress: "◐",
  completed: "✓",
  blocked: "⊘",
};

/** Whether the user folded the checklist away (kept across re-renders and sessions). */
let folded = false;
let drawn: { target: HTMLElement; tasks: readonly Task[] } | undefined;

/**
 * The session's task list as a checklist (`#tasks`): one row per task with its status (a mark and
 * the word), subject, owner and open dependencies; the summary counts what is done. Hidden while
 * the session has no task. Rebuilt whenever the list changes (tasks are few).
 */
export function renderTaskChecklist(target: HTMLElement, tasks: readonly Task[]): void {
  if (drawn?.target === target && drawn.tasks === tasks) return;
  drawn = { target, tasks };
  target.hidden = tasks.length === 0;
  if (tasks.length === 0) {
    target.replaceChildren();
    return;
  }
  const done = tasks.filter((t) => t.status === "completed").length;
  const open = new Set(tasks.filter((t) => t.status !== "completed").map((t) => t.id));
  const rows = tasks.map((task) => {
    const waitingOn = task.dependencies.filter((id) => open.has(id));
    return h(
      "li",
      { class: "task", "data-task": task.id, "data-status": task.status },
      h("span", { class: "task-mark", "aria-hidden": "true" }, STATUS_MARK[task.status]),
      h("span", { class: "task-subject", title: task.description || undefined }, task.subject),
      h("span", { class: "task-status" }, STATUS_TEXT[task.status]),
      task.owner ? h("span", { class: "task-owner" }, task.owner) : undefined,
      waitingOn.length > 0 ? h("span", { class: "task-deps" }, `after ${waitingOn.join(", ")}`) : undefined,
    );
  });
  const details = h(
    "details",
    { class: "tasks-box" },
    h("summary", {}, `Tasks · ${done} of ${tasks.length} done`),
    h("ul", { class: "task-list" }, ...rows),
  );
  details.open = !folded;
  details.addEventListener("toggle", () => {
    folded = !details.open;
  });
  target.replaceChildren(details);
}
