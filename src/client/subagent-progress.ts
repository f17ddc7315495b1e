import type { AgentEvent } from "../event/types.js";
import type { ContentBlock, Msg, ToolResultBlock } from "../message/index.js";
import type { SessionView, SubRun } from "./session-view.js";

/** Where a spawned sub-agent stands, as its parent session sees it. */
export type SubagentStatus = "running" | "completed" | "failed" | "cancelled" | "paused" | "lost";

/**
 * One sub-agent an `agent_spawn` call of the session started, folded from what the parent session
 * receives: the call and its result, SUBAGENT_EXPOSED, the nested events of its run, and the
 * outcomes `agent_wait` / `agent_cancel` / `agent_list` and the injected hints report.
 */
export interface SubagentProgress {
  /** The `agent_spawn` call that started it. */
  toolCallId: string;
  /** `sub_1`, ... once the spawn said (its result, SUBAGENT_EXPOSED). */
  subagentId?: string;
  label?: string;
  template?: string;
  status: SubagentStatus;
  /** It runs on after its spawn call returned (asked for, or past the call's timeout). */
  background: boolean;
  /** Its own session, when it was exposed to the user (SUBAGENT_EXPOSED `sessionId`). */
  sessionId?: string;
  /** Its run's `source` path (`main/<label>`) and reply id, when its events streamed through here. */
  source?: string;
  replyId?: string;
  /** What it did last (its latest text, thought or tool call), while its events streamed here. */
  activity?: string;
  /** Its final text (completed) or why it ended otherwise. */
  result?: string;
}

/** The outcome line of the spawn tools and hints: `Sub-agent sub_1 ("label", template t) completed. ...` */
const OUTCOME =
  /Sub-agent (sub_[0-9]+) \("([^"]*)", template ([^)]*)\) (completed|failed|cancelled|paused|lost|was lost|is still running)[.:]?\s*([\s\S]*)/g;

const STATUS_WORDS: Record<string, SubagentStatus> = {
  completed: "completed",
  failed: "failed",
  cancelled: "cancelled",
  paused: "paused",
  lost: "lost",
  "was lost": "lost",
  "is still running": "running",
};

const SPAWN_TOOLS = new Set(["agent_wait", "agent_cancel", "agent_list"]);

function textOf(result: ToolResultBlock): string {
  if (typeof result.output === "string") return result.output;
  return result.output.map((part) => (part.type === "text" ? part.text : "")).join("");
}

function parseJson(text: string): Record<string, unknown> | undefined {
  try {
    const value = JSON.parse(text) as unknown;
    return value && typeof value === "object" ? (value as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

const str = (value: unknown) => (typeof value === "string" && value !== "" ? value : undefined);

/** A short line of what a run did last. */
function activityOf(msg: Msg): string | undefined {
  for (let i = msg.content.length - 1; i >= 0; i--) {
    const block = msg.content[i] as ContentBlock;
    if (block.type === "text" && block.text.trim()) return clip(block.text);
    if (block.type === "tool_call") return `Calling ${block.name}`;
    if (block.type === "tool_result") return `${block.name}: ${clip(textOf(block)) || block.state}`;
    if (block.type === "thinking" && block.thinking.trim()) return `Thinking: ${clip(block.thinking)}`;
  }
  return undefined;
}

const clip = (text: string) => {
  const line = text.replace(/\s+/g, " ").trim();
  return line.length > 140 ? `${line.slice(0, 139)}…` : line;
};

class Progress {
  readonly byCall = new Map<string, SubagentProgress>();

  spawned(toolCallId: string, input: unknown): void {
    const args = (typeof input === "string" ? parseJson(input) : (input as Record<string, unknown>)) ?? {};
    const label = str(args.label);
    const template = str(args.template);
    this.byCall.set(toolCallId, {
      toolCallId,
      status: "running",
      background: args.background === true,
      ...(label ? { label } : {}),
      ...(template ? { template } : {}),
    });
  }

  bySubagent(id: string): SubagentProgress | undefined {
    for (const entry of this.byCall.values()) if (entry.subagentId === id) return entry;
    return undefined;
  }

  spawnResult(entry: SubagentProgress, result: ToolResultBlock): void {
    const text = textOf(result);
    if (result.state === "running") return;
    if (result.state === "interrupted" || result.state === "denied") {
      this.set(entry, { status: "cancelled", result: text });
      return;
    }
    const handle = parseJson(text);
    if (result.state === "success" && handle && str(handle.subagent_id) && handle.status === "running") {
      const label = str(handle.label);
      this.set(entry, {
        subagentId: handle.subagent_id as string,
        background: true,
        ...(label ? { label } : {}),
      });
      return;
    }
    if (result.state === "success") {
      this.set(entry, { status: "completed", result: text });
      return;
    }
    if (!this.outcomes(text, entry)) this.set(entry, { status: "failed", result: text });
  }

  /** Applies every outcome line in `text`; `only` takes the first one whatever its id. Says if any matched. */
  outcomes(text: string, only?: SubagentProgress): boolean {
    let matched = false;
    for (const [, id, label, template, word, rest] of text.matchAll(OUTCOME)) {
      const entry = only ?? this.bySubagent(id as string);
      matched = true;
      if (!entry) continue;
      const status = STATUS_WORDS[word as string] ?? "failed";
      const detail = (rest ?? "").replace(/^Its result:\n?/, "").trim();
      this.set(entry, {
        subagentId: id as string,
        label: label as string,
        template: template as string,
        status,
        ...(detail ? { result: detail } : {}),
      });
      if (only) break;
    }
    return matched;
  }

  list(text: string): void {
    const listed = parseJson(text)?.subagents;
    if (!Array.isArray(listed)) return;
    for (const item of listed as Array<Record<string, unknown>>) {
      const entry = str(item.id) ? this.bySubagent(item.id as string) : undefined;
      const status = STATUS_WORDS[String(item.status)];
      if (entry && status) this.set(entry, { status });
    }
  }

  exposed(event: Extract<AgentEvent, { type: "SUBAGENT_EXPOSED" }>): void {
    const entry = this.byCall.get(event.toolCallId);
    if (!entry) return;
    const meta = event.metadata ?? {};
    const subagentId = event.subagentId ?? str(meta.subagentId);
    const label = event.label ?? str(meta.label);
    this.set(entry, {
      replyId: event.replyId,
      ...(event.source ? { source: event.source } : {}),
      ...(subagentId ? { subagentId } : {}),
      ...(label ? { label } : {}),
      // Only the contract's own field: metadata.sessionId names an in-process session nobody serves.
      ...(event.sessionId ? { sessionId: event.sessionId } : {}),
    });
  }

  set(entry: SubagentProgress, patch: Partial<SubagentProgress>): void {
    // An ended sub-agent stays ended: a later "running" line (an older agent_list) does not revive it.
    if (patch.status === "running" && entry.status !== "running") delete patch.status;
    this.byCall.set(entry.toolCallId, Object.assign(entry, patch));
  }
}

/**
 * The sub-agents the session's `agent_spawn` calls started, in call order, with their state and
 * latest activity (see `SubagentProgress`). Pure: computed from the view's messages, events and
 * sub-runs (pass the events of the session's log too, after a reload, for runs that streamed
 * nested and hints the stored replies dropped).
 */
export function subagentsOf(view: Pick<SessionView, "messages" | "events" | "subRuns">): SubagentProgress[] {
  const progress = new Progress();
  const hintsSeen = new Set<string>();
  for (const msg of view.messages)
    for (const block of msg.content) {
      if (block.type === "tool_call" && block.name === "agent_spawn") progress.spawned(block.id, block.input);
      else if (block.type === "tool_result") {
        const entry = progress.byCall.get(block.id);
        if (entry && block.name === "agent_spawn") progress.spawnResult(entry, block);
        else if (SPAWN_TOOLS.has(block.name) && block.state !== "running") {
          const text = textOf(block);
          if (block.name === "agent_list") progress.list(text);
          else progress.outcomes(text);
        }
      } else if (block.type === "hint") {
        hintsSeen.add(block.id);
        progress.outcomes(block.text);
      }
    }
  for (const event of view.events) {
    if (event.type === "SUBAGENT_EXPOSED") progress.exposed(event);
    else if (event.type === "HINT_BLOCK" && !event.source?.includes("/") && !hintsSeen.has(event.blockId))
      progress.outcomes(event.text);
  }
  const runs = new Map<string, SubRun>(view.subRuns.map((run) => [run.replyId, run]));
  for (const entry of progress.byCall.values()) {
    const run = entry.replyId ? runs.get(entry.replyId) : undefined;
    const activity = run ? activityOf(run.msg) : undefined;
    if (activity) entry.activity = activity;
  }
  return [...progress.byCall.values()];
}
