import type { AgentEvent } from "../../event/index.js";
import { type Msg, userMsg } from "../../message/index.js";
import type { AgentState } from "../../state/index.js";
import type { ToolContext } from "../../tool/index.js";
import type { AgentLike } from "../agent-like.js";
import { finalText } from "../final-text.js";

/** Where a spawned sub-agent stands. `lost`: the process that ran it ended before it did. */
export type SpawnStatus = "running" | "completed" | "failed" | "cancelled" | "paused" | "lost";

/**
 * One spawned sub-agent as the parent's session keeps it (`toolContext["agentscope.spawns"]`,
 * plain JSON, saved with the session).
 */
export interface SpawnRecord {
  /** `sub_1`, `sub_2`, ... per parent session. */
  id: string;
  label: string;
  template: string;
  /** The agent it runs as, when not the template's name (the service: a configured agent). */
  agent?: string;
  /** The sub-agent's own session id. */
  sessionId: string;
  status: SpawnStatus;
  /** The parent's call that started it, and the parent's reply it was in. */
  toolCallId: string;
  replyId: string;
  /** The parent's task it works on (`agent_spawn { task_id }`): owned by its label while it runs. */
  taskId?: string;
  /** Served to the user as a session of its own (`agent_spawn { expose_to_user }`, hosts that can). */
  exposed?: boolean;
  /** Whether the call returned before the sub-agent ended (asked for, or promoted at its timeout). */
  background: boolean;
  /** Its final text, once completed. */
  result?: string;
  /** Why it failed, paused or was cancelled. */
  error?: string;
  usage?: { inputTokens: number; outputTokens: number };
  /** Its outcome reached the parent (the call's result, agent_wait, or a hint before a reasoning step). */
  delivered: boolean;
  startedAt: string;
  endedAt?: string;
}

/**
 * A running sub-agent as the spawn tools see it, wherever it runs (this process: `SpawnedRun`; the
 * service: a run of its own session): its record, its end, and how to watch or stop it.
 */
export interface SpawnHandle {
  readonly record: SpawnRecord;
  /** Settles when the run has ended, however it ended (never rejects). */
  readonly done: Promise<SpawnRecord>;
  /** While the spawning call waits, the sub-agent's events go out through the parent's stream. */
  forward: ((event: AgentEvent) => void) | undefined;
  /** The sub-agent's first reply id and event source, once known (for SUBAGENT_EXPOSED). */
  readonly firstReply?: { replyId: string; source: string };
  cancel(reason: string): void;
}

/** A sub-agent running in this process: its record, its session, and how to stop or watch it. */
export class SpawnedRun implements SpawnHandle {
  readonly controller = new AbortController();
  /** Settles when the run has ended, however it ended (never rejects). */
  readonly done: Promise<SpawnRecord>;
  /** While the spawning call waits, its events go out through the parent's stream. */
  forward: ((event: AgentEvent) => void) | undefined;

  constructor(
    readonly record: SpawnRecord,
    readonly state: AgentState,
    readonly agent: AgentLike,
    input: string | Msg,
    readonly source: string,
  ) {
    this.done = this.drive(agent, typeof input === "string" ? userMsg(input) : input, source);
  }

  cancel(reason: string): void {
    if (this.record.status !== "running") return;
    this.record.error = reason;
    this.controller.abort(new Error(reason));
  }

  private async drive(agent: AgentLike, input: Msg, source: string): Promise<SpawnRecord> {
    const record = this.record;
    let replyId: string | undefined;
    try {
      const stream = agent.replyStream(input, {
        state: this.state,
        signal: this.controller.signal,
        source,
      });
      for await (const event of stream) {
        replyId ??= event.replyId;
        if (event.source === undefined) event.source = source;
        this.forward?.(event);
      }
      const reply = this.state.context.findLast((msg) => msg.id === replyId);
      if (reply?.usage) record.usage = addUsage(record.usage, reply.usage);
      const waiting = this.state.replyContext?.waitingFor;
      if (waiting) {
        record.status = "paused";
        record.error = `it paused for ${waiting === "user_confirm" ? "a confirmation" : "an external result"} nobody can give it; cancel it, or give its template a mode that does not ask`;
      } else if (!reply) {
        record.status = "failed";
        record.error = "it produced no reply";
      } else if (reply.finishedReason === "error") {
        record.status = "failed";
        record.error = reply.error?.message ?? "unknown error";
      } else if (reply.finishedReason === "interrupted" || this.controller.signal.aborted) {
        record.status = "cancelled";
        record.error ??= "interrupted";
        record.result = finalText(reply);
      } else {
        record.status = "completed";
        const text = finalText(reply);
        record.result =
          reply.finishedReason === "exceed_max_iters"
            ? `[stopped at its iteration limit] ${text}`.trimEnd()
            : text;
      }
    } catch (error) {
      record.status = this.controller.signal.aborted ? "cancelled" : "failed";
      record.error ??= error instanceof Error ? error.message : String(error);
    }
    record.endedAt = new Date().toISOString();
    this.forward = undefined;
    return record;
  }
}

/** The outcome of a sub-agent in words the parent's model reads. */
export function outcomeText(record: SpawnRecord): string {
  const who = `Sub-agent ${record.id} ("${record.label}", template ${record.template})`;
  switch (record.status) {
    case "completed":
      return `${who} completed. Its result:\n${record.result ?? ""}`;
    case "running":
      return `${who} is still running.`;
    case "lost":
      return `${who} was lost: the process that ran it ended before it finished.`;
    default:
      return `${who} ${record.status}: ${record.error ?? "no reason given"}${record.result ? `\nIts last text:\n${record.result}` : ""}`;
  }
}

/** Usage summed over a sub-agent's replies (its first, and one per `agent_message`). */
export function addUsage(
  sum: SpawnRecord["usage"],
  more: { inputTokens: number; outputTokens: number },
): NonNullable<SpawnRecord["usage"]> {
  return {
    inputTokens: (sum?.inputTokens ?? 0) + more.inputTokens,
    outputTokens: (sum?.outputTokens ?? 0) + more.outputTokens,
  };
}

/** Why an ended sub-agent takes no message (`agent_message`), or undefined when it does. */
export function messageRefusal(record: SpawnRecord): string | undefined {
  if (record.status === "paused")
    return `${record.id} is paused on ${record.error ?? "a question nobody can answer"}; agent_cancel it and spawn another`;
  if (record.status === "lost") return `${record.id} was lost with the process that ran it; spawn another`;
  return undefined;
}

/**
 * The parent's message to a sub-agent, as a user turn of the sub-agent's session (its metadata says
 * who sent it: `from: "parent"`, the parent's session and call).
 */
export function parentMessage(text: string, ctx: ToolContext): Msg {
  return userMsg(text, {
    metadata: { from: "parent", parentSessionId: ctx.sessionId, toolCallId: ctx.toolCallId },
  });
}

/** The record of a sub-agent a message set going again: running, its last outcome cleared, not delivered. */
export function reopen(record: SpawnRecord, ctx: ToolContext): void {
  record.status = "running";
  record.delivered = false;
  record.background = false;
  record.toolCallId = ctx.toolCallId;
  record.replyId = ctx.replyId;
  delete record.result;
  delete record.error;
  delete record.endedAt;
}

/** The tokens (input + output) these sub-agents have used. */
export function usedTokens(records: readonly SpawnRecord[]): number {
  return records.reduce((sum, r) => sum + (r.usage ? r.usage.inputTokens + r.usage.outputTokens : 0), 0);
}
