import type { Middleware } from "../../agent/index.js";
import { newId } from "../../message/index.js";
import type { AgentState } from "../../state/index.js";
import type { Tool, ToolContext } from "../../tool/index.js";
import { narrowPermission } from "../narrow-permission.js";
import { spawnHints } from "./spawn-hints.js";
import type { SpawnHost, SpawnRequest } from "./spawn-host.js";
import { overLimit, type ResolvedLimits, resolveLimits, type SpawnLimits } from "./spawn-limits.js";
import { type ResolvedTemplate, resolveTemplates, type SpawnTemplate } from "./spawn-template.js";
import { spawnTools } from "./spawn-tools.js";
import {
  messageRefusal,
  parentMessage,
  reopen,
  SpawnedRun,
  type SpawnRecord,
  usedTokens,
} from "./spawned-run.js";

/** Where a parent session keeps the records of its spawned sub-agents (its tool data). */
export const SPAWNS_KEY = "agentscope.spawns";

export interface AgentSpawnerOptions {
  templates: readonly SpawnTemplate[];
  limits?: SpawnLimits;
}

/**
 * Lets an agent start sub-agents from templates while it works: `agent_spawn` (wait up to a timeout,
 * then keep it running in the background), `agent_list`, `agent_wait`, `agent_cancel`,
 * `agent_message` (a new turn for an ended one), and a middleware that hands each background
 * sub-agent's outcome to the parent as a hint before its next reasoning step. Give the agent both: `new Agent({ toolkit: [...spawner.tools], middlewares:
 * [spawner.middleware] })`. One spawner may serve many sessions; the sub-agents run in this process
 * (their records are saved with the parent's session; after a restart a run that was in flight is
 * `lost`).
 */
export class AgentSpawner implements SpawnHost {
  readonly limits: ResolvedLimits;
  readonly tools: Tool[];
  readonly middleware: Middleware;
  private readonly templates: Map<string, ResolvedTemplate>;
  /** Live runs by parent session id, then sub-agent id. */
  private readonly live = new Map<string, Map<string, SpawnedRun>>();

  constructor(options: AgentSpawnerOptions) {
    this.templates = resolveTemplates(options.templates);
    this.limits = resolveLimits(options.limits);
    this.tools = spawnTools(this);
    this.middleware = spawnHints(this);
  }

  templateList(): Array<{ name: string; description: string }> {
    return [...this.templates.values()].map(({ template }) => ({
      name: template.name,
      description: template.description,
    }));
  }

  /**
   * Starts a sub-agent for the call `ctx`, or returns why not (an unknown template, a limit — named).
   * Its permission is the template's narrowed by the caller's, so it is never wider than its parent.
   */
  start(request: SpawnRequest, ctx: ToolContext): SpawnedRun | string {
    const resolved = this.templates.get(request.template);
    if (!resolved) {
      return `no template "${request.template}"; the templates are ${[...this.templates.keys()].join(", ")}`;
    }
    const records = this.records(ctx.state, ctx.sessionId);
    const live = this.liveOf(ctx.sessionId);
    const refusal = overLimit(this.limits, {
      depth: Math.max(0, (ctx.source ?? "").split("/").length - 1),
      inThisReply: records.filter((r) => r.replyId === ctx.replyId).length,
      running: [...live.values()].filter((run) => run.record.status === "running").length,
      started: records.length,
      tokens: usedTokens(records),
    });
    if (refusal) return refusal;
    const id = `sub_${records.length + 1}`;
    const label = request.label ?? `${request.template}-${records.length + 1}`;
    if (records.some((r) => r.label === label))
      return `the label "${label}" is taken in this session; pick another`;
    const agent = resolved.agent(() => ({ tools: this.tools, middleware: this.middleware }));
    const state: AgentState = agent.createState(newId("session"));
    state.permission = narrowPermission({ ...state.permission, ...resolved.permission }, ctx.permission);
    const record: SpawnRecord = {
      id,
      label,
      template: request.template,
      sessionId: state.sessionId,
      status: "running",
      toolCallId: ctx.toolCallId,
      replyId: ctx.replyId,
      background: false,
      ...(request.taskId ? { taskId: request.taskId } : {}),
      delivered: false,
      startedAt: new Date().toISOString(),
    };
    records.push(record);
    const run = new SpawnedRun(record, state, agent, request.prompt, `${ctx.source ?? "agent"}/${label}`);
    live.set(id, run);
    return run;
  }

  /** Starts an ended sub-agent's next reply, to the parent's `text` (`agent_message`), in its own session. */
  message(record: SpawnRecord, text: string, ctx: ToolContext): SpawnedRun | string {
    const refusal = messageRefusal(record);
    if (refusal) return refusal;
    const previous = this.run(ctx.sessionId, record.id);
    if (!previous) return `${record.id} was lost with the process that ran it; spawn another`;
    reopen(record, ctx);
    const run = new SpawnedRun(
      record,
      previous.state,
      previous.agent,
      parentMessage(text, ctx),
      previous.source,
    );
    this.liveOf(ctx.sessionId).set(record.id, run);
    return run;
  }

  /** The live run of a sub-agent of this session (undefined once the process that ran it is gone). */
  run(sessionId: string, id: string): SpawnedRun | undefined {
    return this.live.get(sessionId)?.get(id);
  }

  /** Settles with the sub-agent's record once it has ended (at once if it is not running here). */
  async settled(sessionId: string, id: string): Promise<SpawnRecord | undefined> {
    const run = this.run(sessionId, id);
    return run ? run.done : undefined;
  }

  /** Cancels every sub-agent running for `sessionId` (every session without one). */
  cancelAll(sessionId?: string, reason = "cancelled by the host"): void {
    const sessions = sessionId === undefined ? [...this.live.values()] : [this.liveOf(sessionId)];
    for (const runs of sessions) for (const run of runs.values()) run.cancel(reason);
  }

  /**
   * The session's records, brought up to date from the live runs (a record still `running` that no
   * live run backs is `lost`). The array is the one in the session's tool data.
   */
  records(toolState: Record<string, unknown>, sessionId: string): SpawnRecord[] {
    let records = toolState[SPAWNS_KEY] as SpawnRecord[] | undefined;
    if (!Array.isArray(records)) {
      records = [];
      toolState[SPAWNS_KEY] = records;
    }
    const live = this.live.get(sessionId);
    for (let i = 0; i < records.length; i++) {
      const run = live?.get(records[i]!.id);
      if (run) records[i] = run.record;
      else if (records[i]!.status === "running") {
        records[i] = {
          ...records[i]!,
          status: "lost",
          error: "the process that ran it ended before it finished",
        };
      }
    }
    return records;
  }

  private liveOf(sessionId: string): Map<string, SpawnedRun> {
    let runs = this.live.get(sessionId);
    if (!runs) {
      runs = new Map();
      this.live.set(sessionId, runs);
    }
    return runs;
  }
}

/** A spawner over these templates and limits (see `AgentSpawner`). */
export function agentSpawner(options: AgentSpawnerOptions): AgentSpawner {
  return new AgentSpawner(options);
}
