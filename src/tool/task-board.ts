import { TASK_ID_PATTERN, type Task, type TaskStatus, type TaskUpdate } from "../protocol/task.js";
import { ToolError } from "./tool-error.js";

/** What a new task needs. */
export interface NewTask {
  subject: string;
  description?: string;
  owner?: string;
  dependencies?: string[];
  metadata?: Record<string, unknown>;
}

/** A change to a task; `owner: null` clears it, `metadata` is merged (a key set to null is removed). */
export interface TaskChange {
  subject?: string;
  description?: string;
  status?: TaskStatus;
  owner?: string | null;
  /** Replaces the dependency list. */
  dependencies?: string[];
  metadata?: Record<string, unknown>;
}

/**
 * A session's task list as a tool sees it (`ToolContext.tasks`): every change is checked (ids that
 * exist, no task depending on itself or on a cycle, nothing started or completed before the tasks
 * it depends on are completed) and reported to `onChange`, which the agent turns into a CUSTOM
 * `task_updated` event. A refused change throws a ToolError the model reads, and changes nothing.
 */
export class TaskBoard {
  constructor(
    private readonly tasks: Task[],
    private readonly onChange: (update: TaskUpdate) => void = () => {},
    private readonly now: () => string = () => new Date().toISOString(),
  ) {}

  list(): readonly Task[] {
    return this.tasks;
  }

  get(id: string): Task | undefined {
    return this.tasks.find((task) => task.id === id);
  }

  /** The task, or a ToolError naming the ids that exist. */
  require(id: string): Task {
    const task = this.get(id);
    if (task) return task;
    const known = this.tasks.map((t) => t.id);
    throw new ToolError(
      `no task "${id}"${known.length > 0 ? ` (the tasks are ${known.join(", ")})` : " (the list is empty)"}`,
    );
  }

  /** The ids of `task`'s dependencies that are not completed yet. */
  openDependencies(task: Task): string[] {
    return task.dependencies.filter((id) => this.get(id)?.status !== "completed");
  }

  create(input: NewTask): Task {
    const id = this.nextId();
    const at = this.now();
    const dependencies = this.checkDependencies(id, input.dependencies ?? []);
    const task: Task = {
      id,
      subject: checkSubject(input.subject),
      description: input.description ?? "",
      status: "pending",
      dependencies,
      createdAt: at,
      updatedAt: at,
    };
    if (input.owner !== undefined && input.owner !== "") task.owner = input.owner;
    if (input.metadata !== undefined && Object.keys(input.metadata).length > 0)
      task.metadata = { ...input.metadata };
    this.tasks.push(task);
    this.onChange({ change: "created", task: structuredClone(task) });
    return task;
  }

  update(id: string, change: TaskChange): Task {
    const current = this.require(id);
    const next: Task = { ...current, dependencies: current.dependencies.slice() };
    if (change.subject !== undefined) next.subject = checkSubject(change.subject);
    if (change.description !== undefined) next.description = change.description;
    if (change.dependencies !== undefined)
      next.dependencies = this.checkDependencies(id, change.dependencies);
    if (change.owner === null || change.owner === "") delete next.owner;
    else if (change.owner !== undefined) next.owner = change.owner;
    if (change.metadata !== undefined) next.metadata = mergeMetadata(current.metadata, change.metadata);
    if (next.metadata && Object.keys(next.metadata).length === 0) delete next.metadata;
    if (change.status !== undefined) {
      if (change.status === "in_progress" || change.status === "completed") {
        const open = this.openDependencies(next);
        if (open.length > 0) {
          throw new ToolError(
            `task "${id}" cannot be ${change.status === "completed" ? "completed" : "started"} before the tasks it depends on are completed: ${open.join(", ")}`,
          );
        }
      }
      next.status = change.status;
    }
    next.updatedAt = this.now();
    this.tasks[this.tasks.indexOf(current)] = next;
    this.onChange({ change: "updated", task: structuredClone(next) });
    return next;
  }

  private nextId(): string {
    let max = 0;
    for (const task of this.tasks) max = Math.max(max, Number(task.id.slice("task_".length)) || 0);
    return `task_${max + 1}`;
  }

  /** The dependency list, deduplicated, each an existing task, none making a cycle through `id`. */
  private checkDependencies(id: string, dependencies: string[]): string[] {
    const unique = [...new Set(dependencies)];
    for (const dep of unique) {
      if (!TASK_ID_PATTERN.test(dep))
        throw new ToolError(`dependency "${dep}" is not a task id (task_1, ...)`);
      if (dep === id) throw new ToolError(`task "${id}" cannot depend on itself`);
      this.require(dep);
      if (this.reaches(dep, id)) {
        throw new ToolError(`task "${id}" cannot depend on "${dep}": "${dep}" already depends on "${id}"`);
      }
    }
    return unique;
  }

  /** Whether `from` depends on `to`, directly or through other tasks. */
  private reaches(from: string, to: string): boolean {
    const seen = new Set<string>();
    const stack = [from];
    while (stack.length > 0) {
      const at = stack.pop()!;
      if (at === to) return true;
      if (seen.has(at)) continue;
      seen.add(at);
      stack.push(...(this.get(at)?.dependencies ?? []));
    }
    return false;
  }
}

function checkSubject(subject: string): string {
  const trimmed = subject.trim();
  if (trimmed === "") throw new ToolError("a task needs a subject");
  if (trimmed.length > 200) throw new ToolError("a task's subject is at most 200 characters");
  return trimmed;
}

function mergeMetadata(
  current: Record<string, unknown> | undefined,
  change: Record<string, unknown>,
): Record<string, unknown> {
  const merged: Record<string, unknown> = { ...current };
  for (const [key, value] of Object.entries(change)) {
    if (value === null) delete merged[key];
    else merged[key] = value;
  }
  return merged;
}
