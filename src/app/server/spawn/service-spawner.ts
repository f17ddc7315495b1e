import type { Middleware } from "../../../agent/index.js";
import { userMsg } from "../../../message/index.js";
import {
  messageRefusal,
  narrowPermission,
  overLimit,
  parentMessage,
  type ResolvedLimits,
  reopen,
  resolveLimits,
  SPAWNS_KEY,
  type SpawnHost,
  type SpawnLimits,
  type SpawnRecord,
  type SpawnRequest,
  spawnHints,
  spawnTools,
  usedTokens,
} from "../../../multiagent/index.js";
import { type PermissionOptions, permissionContextFrom } from "../../../permission/index.js";
import type { Tool, ToolContext } from "../../../tool/index.js";
import { RequestError } from "../request-error.js";
import type { ServiceRuntime } from "../runtime/service-runtime.js";
import { adoptOrphans } from "./adopt-children.js";
import { settleFromChild } from "./child-outcome.js";
import { ChildRun } from "./child-run.js";
import { childSessionId, PARENT_KEY, type ParentLink } from "./child-session.js";
import type { SpawnDeliveries } from "./spawn-deliveries.js";

/** A template of the service: a configured agent and the permission it runs with. */
export interface ServiceSpawnTemplate {
  name: string;
  description: string;
  /** The configured agent the sub-agent's session runs. */
  agent: string;
  permission?: PermissionOptions;
}

export interface ServiceSpawnerOptions {
  templates: readonly ServiceSpawnTemplate[];
  limits?: SpawnLimits;
  /**
   * When a background sub-agent ends after the parent's reply did, start a follow-up reply in the
   * parent session that reads its outcome (default true); false: the outcome waits for the parent's
   * next reasoning step, whenever the user next writes.
   */
  followUp?: boolean;
}

/**
 * `agent_spawn` in the service: each sub-agent is a session of its own (`<parent>.sub_<n>`, owned by
 * the parent's owner, titled with its label) whose reply runs as any reply does, under the service's
 * lease, so it survives a restart (recovery closes its cut-off reply and resumes it) and runs on any
 * replica. Its outcome is read from its session's stored state; `expose_to_user` leaves the session
 * to its user (listed, streamed, answered), in the template's own mode.
 */
export class ServiceSpawner implements SpawnHost {
  readonly limits: ResolvedLimits;
  readonly exposes = true;
  readonly tools: Tool[];
  readonly middleware: Middleware;
  readonly followUp: boolean;
  readonly #templates: Map<string, ServiceSpawnTemplate>;
  readonly #runtime: () => ServiceRuntime | undefined;
  readonly #deliveries: () => SpawnDeliveries | undefined;
  /** Records whose session a spawn of this process is creating (not judged by `refresh` until started). */
  readonly #launching = new WeakSet<SpawnRecord>();
  /** The handles this process made, by `<parent session>/<id>`. */
  readonly #handles = new Map<string, ChildRun>();
  /** The records array `records` last returned per session (what `run` hands a handle). */
  readonly #latest = new Map<string, SpawnRecord[]>();
  /** Parent sessions' owners, as read at a spawn or refresh (the user a handle acts as). */
  readonly #owners = new Map<string, string>();

  constructor(
    options: ServiceSpawnerOptions,
    runtime: () => ServiceRuntime | undefined,
    deliveries: () => SpawnDeliveries | undefined = () => undefined,
  ) {
    this.#templates = new Map(options.templates.map((t) => [t.name, t]));
    this.limits = resolveLimits(options.limits);
    this.followUp = options.followUp ?? true;
    this.#runtime = runtime;
    this.#deliveries = deliveries;
    this.tools = spawnTools(this);
    this.middleware = spawnHints(this);
  }

  templateList(): Array<{ name: string; description: string }> {
    return [...this.#templates.values()].map(({ name, description }) => ({ name, description }));
  }

  async start(request: SpawnRequest, ctx: ToolContext): Promise<ChildRun | string> {
    const runtime = this.#runtime();
    if (!runtime) return "spawning is not available: the service is not running";
    const template = this.#templates.get(request.template);
    if (!template) {
      return `no template "${request.template}"; the templates are ${[...this.#templates.keys()].join(", ")}`;
    }
    const records = this.records(ctx.state, ctx.sessionId);
    const refusal = overLimit(this.limits, {
      depth: Math.max(0, (ctx.source ?? "").split("/").length - 1),
      inThisReply: records.filter((r) => r.replyId === ctx.replyId).length,
      running: records.filter((r) => r.status === "running").length,
      started: records.length,
      tokens: usedTokens(records),
    });
    if (refusal) return refusal;
    const id = `sub_${records.length + 1}`;
    const label = request.label ?? `${request.template}-${records.length + 1}`;
    if (records.some((r) => r.label === label))
      return `the label "${label}" is taken in this session; pick another`;
    const sessionId = childSessionId(ctx.sessionId, id);
    const record: SpawnRecord = {
      id,
      label,
      template: request.template,
      agent: template.agent,
      sessionId,
      status: "running",
      toolCallId: ctx.toolCallId,
      replyId: ctx.replyId,
      background: false,
      ...(request.taskId ? { taskId: request.taskId } : {}),
      ...(request.expose ? { exposed: true } : {}),
      delivered: false,
      startedAt: new Date().toISOString(),
    };
    // Taken before anything is awaited, so spawns of one step running at once count each other.
    records.push(record);
    this.#launching.add(record);
    try {
      return await this.#launch(runtime, template, request, ctx, record);
    } catch (error) {
      records.splice(records.indexOf(record), 1);
      throw error;
    } finally {
      this.#launching.delete(record);
    }
  }

  /**
   * Logs the delivery it owes the parent (the outbox), creates the sub-agent's session (its
   * permission and parent link in its state) and starts its reply. A crash between any two steps is
   * completed later: the parent adopts a session its saved records lack (`adoptOrphans`), and the
   * outbox's sweep hands over the outcome.
   */
  async #launch(
    runtime: ServiceRuntime,
    template: ServiceSpawnTemplate,
    request: SpawnRequest,
    ctx: ToolContext,
    record: SpawnRecord,
  ): Promise<ChildRun | string> {
    const { id, label, sessionId } = record;
    const parent = await runtime.backend.sessions.get(ctx.sessionId);
    if (!parent) throw new Error(`the session "${ctx.sessionId}" is gone`);
    this.#owners.set(ctx.sessionId, parent.owner);
    await this.#deliveries()?.pending({ parentSessionId: ctx.sessionId, childSessionId: sessionId });
    await runtime.createSession(parent.owner, { sessionId, agent: template.agent, title: label });
    const stored = (await runtime.backend.store.load(sessionId))!;
    const state = stored.state;
    // Nobody watches an unexposed sub-agent, so what would ask is denied unless the template says
    // otherwise; an exposed one runs in its template's (else its agent's) mode. Never wider than the parent.
    const own = template.permission
      ? permissionContextFrom(template.permission, "config")
      : request.expose
        ? {}
        : { mode: "dont_ask" as const };
    state.permission = narrowPermission({ ...state.permission, ...own }, ctx.permission);
    const link: ParentLink = {
      sessionId: ctx.sessionId,
      toolCallId: ctx.toolCallId,
      subagentId: id,
      label,
      template: request.template,
      ...(request.expose ? { exposed: true } : {}),
      ...(request.taskId ? { taskId: request.taskId } : {}),
    };
    state.toolContext[PARENT_KEY] = link;
    await runtime.backend.store.save(sessionId, state, { expectedVersion: stored.version });
    const run = await runtime.startReply(parent.owner, sessionId, [userMsg(request.prompt)]);
    const handle = new ChildRun(record, runtime, parent.owner, {
      replyId: run.replyId,
      source: `${ctx.source ?? "agent"}/${label}`,
    });
    this.#keep(ctx.sessionId, handle);
    return handle;
  }

  /**
   * A new turn of an ended sub-agent's session, from its parent (`agent_message`): the user message
   * and its reply start as any reply does, under the session's lease. A session that is running (its
   * user talking to it, say) or paused on a question for its user refuses; nothing is queued.
   */
  async message(record: SpawnRecord, text: string, ctx: ToolContext): Promise<ChildRun | string> {
    const refusal = messageRefusal(record);
    if (refusal) return refusal;
    const runtime = this.#runtime();
    if (!runtime) return "messaging is not available: the service is not running";
    const owner =
      this.#owners.get(ctx.sessionId) ?? (await runtime.backend.sessions.get(ctx.sessionId))?.owner;
    if (owner === undefined) return `the session "${ctx.sessionId}" is gone`;
    this.#owners.set(ctx.sessionId, owner);
    const after = await runtime.backend.events.lastSeq(record.sessionId);
    await this.#deliveries()?.pending({ parentSessionId: ctx.sessionId, childSessionId: record.sessionId });
    let started: { replyId: string };
    try {
      started = await runtime.startReply(owner, record.sessionId, [parentMessage(text, ctx)]);
    } catch (error) {
      if (!RequestError.isInstance(error)) throw error;
      if (error.info.type === "run_in_progress")
        return `${record.id}'s session is running a reply (its user may be talking to it); agent_wait, then try again`;
      return `${record.id} cannot take a message now: ${error.info.message}`;
    }
    reopen(record, ctx);
    const source = `${ctx.source ?? "agent"}/${record.label}`;
    const handle = new ChildRun(record, runtime, owner, { replyId: started.replyId, source, after });
    this.#keep(ctx.sessionId, handle);
    return handle;
  }

  run(sessionId: string, id: string): ChildRun | undefined {
    const record = this.#latest.get(sessionId)?.find((r) => r.id === id);
    const runtime = this.#runtime();
    if (record?.status !== "running" || !runtime) return undefined;
    const known = this.#handles.get(`${sessionId}/${id}`);
    if (known?.record === record) return known;
    const owner = this.#owners.get(sessionId);
    if (owner === undefined) return undefined;
    const handle = new ChildRun(record, runtime, owner);
    this.#keep(sessionId, handle);
    return handle;
  }

  records(toolState: Record<string, unknown>, sessionId: string): SpawnRecord[] {
    let records = toolState[SPAWNS_KEY] as SpawnRecord[] | undefined;
    if (!Array.isArray(records)) {
      records = [];
      toolState[SPAWNS_KEY] = records;
    }
    this.#latest.set(sessionId, records);
    return records;
  }

  /**
   * Adopts the sub-agent sessions a crash left without a record (`adoptOrphans`), then reads each
   * running sub-agent's session (wherever and whenever it ran) into its record.
   */
  async refresh(toolState: Record<string, unknown>, sessionId: string): Promise<void> {
    const runtime = this.#runtime();
    if (!runtime) return;
    const records = this.records(toolState, sessionId);
    let owner = this.#owners.get(sessionId);
    if (owner === undefined) {
      owner = (await runtime.backend.sessions.get(sessionId))?.owner;
      if (owner === undefined) return;
      this.#owners.set(sessionId, owner);
    }
    await adoptOrphans(runtime.backend, records, { sessionId, owner }).catch(() => {});
    await Promise.all(
      records
        .filter((r) => r.status === "running" && !this.#launching.has(r))
        .map((r) => settleFromChild(runtime.backend, r).catch(() => false)),
    );
  }

  #keep(sessionId: string, handle: ChildRun): void {
    const key = `${sessionId}/${handle.record.id}`;
    this.#handles.set(key, handle);
    void handle.done.then(() => {
      if (this.#handles.get(key) === handle) this.#handles.delete(key);
    });
  }
}
