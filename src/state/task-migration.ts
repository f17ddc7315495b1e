import { ValidationError } from "../message/index.js";
import { TASK_ID_PATTERN, type Task, type TaskStatus } from "../protocol/task.js";

/** Status words older states (and other frameworks' task lists) used, by the status they mean. */
const STATUS_WORDS: Record<string, TaskStatus> = {
  pending: "pending",
  todo: "pending",
  open: "pending",
  not_started: "pending",
  in_progress: "in_progress",
  "in progress": "in_progress",
  "in-progress": "in_progress",
  running: "in_progress",
  doing: "in_progress",
  active: "in_progress",
  completed: "completed",
  complete: "completed",
  done: "completed",
  finished: "completed",
  blocked: "blocked",
  failed: "blocked",
  abandoned: "blocked",
};

/**
 * Schema version 1 held `tasks` as untyped records (no tool wrote them; a caller could). Version 2
 * types them (`Task`). Each record becomes a task: its id when it is one of ours (else `task_<n>`
 * by position, dependencies renamed to match), `subject` (or `title`, `name`, `content`),
 * `description`, the status its word means (`pending` when none), `owner`, `dependencies` (or
 * `blockedBy`, `dependsOn`); the fields left over go to `metadata.legacy`. A record that is not an
 * object, or has nothing to call the task by, is an error naming it: never a silent drop.
 */
export function migrateTasksV1(tasks: unknown, now: string): Task[] {
  if (tasks === undefined) return [];
  if (!Array.isArray(tasks)) throw new ValidationError("AgentState", "tasks", "must be an array");
  const assigned = newIds(tasks);
  const byOld = new Map<string, string>();
  tasks.forEach((record, i) => {
    const old = idOf(record);
    if (old !== undefined && !byOld.has(old)) byOld.set(old, assigned[i]!);
  });
  return tasks.map((record, i): Task => {
    const at = `tasks[${i}]`;
    if (!isRecord(record)) throw new ValidationError("AgentState", at, "must be an object");
    const {
      id: _id,
      subject,
      title,
      name,
      content,
      description,
      status,
      owner,
      dependencies,
      ...rest
    } = record;
    const { blockedBy, dependsOn, createdAt, updatedAt, metadata, ...legacy } = rest;
    const called = [subject, title, name, content].find(
      (v): v is string => typeof v === "string" && v.trim() !== "",
    );
    if (called === undefined) {
      throw new ValidationError("AgentState", `${at}.subject`, "a task needs a subject (or title, name)");
    }
    const taskId = assigned[i]!;
    const deps = [dependencies, blockedBy, dependsOn].find(Array.isArray) ?? [];
    const task: Task = {
      id: taskId,
      subject: called.slice(0, 200),
      description: typeof description === "string" ? description : "",
      status: statusOf(status),
      dependencies: deps
        .filter((dep): dep is string => typeof dep === "string")
        .map((dep) => byOld.get(dep))
        .filter((dep): dep is string => dep !== undefined && dep !== taskId),
      createdAt: typeof createdAt === "string" && createdAt !== "" ? createdAt : now,
      updatedAt: typeof updatedAt === "string" && updatedAt !== "" ? updatedAt : now,
    };
    if (typeof owner === "string" && owner !== "") task.owner = owner;
    const kept: Record<string, unknown> = isRecord(metadata) ? { ...metadata } : {};
    if (Object.keys(legacy).length > 0) kept.legacy = legacy;
    if (Object.keys(kept).length > 0) task.metadata = kept;
    return task;
  });
}

/** Each record's new id: its own when it is one of ours and not taken before it, else the next free `task_<n>`. */
function newIds(tasks: unknown[]): string[] {
  const assigned: Array<string | undefined> = tasks.map(() => undefined);
  const used = new Set<string>();
  tasks.forEach((record, i) => {
    const id = idOf(record);
    if (id !== undefined && TASK_ID_PATTERN.test(id) && !used.has(id)) {
      assigned[i] = id;
      used.add(id);
    }
  });
  let n = 0;
  return assigned.map((id) => {
    if (id !== undefined) return id;
    let fresh: string;
    do fresh = `task_${++n}`;
    while (used.has(fresh));
    used.add(fresh);
    return fresh;
  });
}

function idOf(record: unknown): string | undefined {
  return isRecord(record) && typeof record.id === "string" ? record.id : undefined;
}

function statusOf(word: unknown): TaskStatus {
  if (typeof word !== "string") return "pending";
  return STATUS_WORDS[word.trim().toLowerCase()] ?? "pending";
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
