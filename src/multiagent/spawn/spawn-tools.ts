import { z } from "zod";
import { functionTool, type Tool, type ToolContext, ToolError } from "../../tool/index.js";
import type { SpawnHost } from "./spawn-host.js";
import { MAX_SPAWN_TIMEOUT_SECONDS, overLimit } from "./spawn-limits.js";
import { assignTask, checkAssignable } from "./spawn-tasks.js";
import { awaitOutcome, deliver, expose, promoted, waitForAny } from "./spawn-wait.js";
import { outcomeText, type SpawnHandle, type SpawnRecord, usedTokens } from "./spawned-run.js";

const SubagentId = z.string().regex(/^sub_[1-9][0-9]*$/, 'a sub-agent id looks like "sub_1"');
const Timeout = z.number().min(0).max(MAX_SPAWN_TIMEOUT_SECONDS);

/** The five tools of a spawner; each call works on the sub-agents of the caller's session. */
export function spawnTools(spawner: SpawnHost): Tool[] {
  const templates = spawner
    .templateList()
    .map((t) => `- ${t.name}: ${t.description}`)
    .join("\n");
  const common = { readOnly: true, pathsOf: () => [] as string[] };
  return [
    functionTool({
      ...common,
      // Starting one changes nothing itself: each of the sub-agent's calls is decided by its own,
      // narrowed, permission. Several spawns in a row run at once.
      concurrencySafe: true,
      name: "agent_spawn",
      description:
        "Starts a sub-agent from a template to work on a task, in a fresh session of its own. Waits for its result " +
        `up to timeout_seconds (default ${spawner.limits.defaultTimeoutSeconds}, at most ${MAX_SPAWN_TIMEOUT_SECONDS}); if it is not done by then ` +
        "(or with background: true, at once) you get its id and it keeps running: its result is given to you " +
        `before a later step, or call agent_wait. Templates:\n${templates}`,
      input: z.object({
        template: z.string().min(1).describe("The template's name"),
        prompt: z.string().min(1).max(100_000).describe("The whole task: the sub-agent sees nothing else"),
        label: z
          .string()
          .regex(/^[A-Za-z0-9_-]{1,64}$/, 'a label is 1-64 letters, digits, "_" or "-"')
          .optional()
          .describe("A short name for it, unique in this session"),
        background: z.boolean().optional().describe("Return at once and let it run"),
        task_id: z
          .string()
          .regex(/^task_[1-9][0-9]*$/, 'a task id looks like "task_1"')
          .optional()
          .describe("A task of your list to hand to it: it owns the task until it ends"),
        timeout_seconds: Timeout.optional(),
        expose_to_user: z
          .boolean()
          .optional()
          .describe("Make its session one the user can open, read and talk to"),
      }),
      async execute(input, ctx) {
        if (input.expose_to_user && !spawner.exposes) {
          throw new ToolError(
            "expose_to_user is not available here: this host does not serve sub-agent sessions to the user. Spawn it without.",
          );
        }
        if (input.task_id) checkAssignable(ctx.tasks, input.task_id);
        await spawner.refresh?.(ctx.state, ctx.sessionId);
        const started = await spawner.start(
          {
            template: input.template,
            prompt: input.prompt,
            ...(input.label ? { label: input.label } : {}),
            ...(input.task_id ? { taskId: input.task_id } : {}),
            ...(input.expose_to_user ? { expose: true } : {}),
          },
          ctx,
        );
        if (typeof started === "string") throw new ToolError(started);
        if (started.record.exposed && started.firstReply) expose(ctx, started, started.firstReply);
        if (ctx.tasks) assignTask(ctx.tasks, started.record);
        if (input.background) return promoted(started, "it runs in the background as asked");
        return awaitOutcome(started, input.timeout_seconds ?? spawner.limits.defaultTimeoutSeconds, ctx);
      },
    }),
    functionTool({
      ...common,
      concurrencySafe: true,
      name: "agent_list",
      description: "Lists the sub-agents this session spawned: id, label, template, status.",
      input: z.object({}),
      execute: async (_input, ctx) => {
        await spawner.refresh?.(ctx.state, ctx.sessionId);
        return {
          subagents: spawner.records(ctx.state, ctx.sessionId).map((r) => ({
            id: r.id,
            label: r.label,
            template: r.template,
            status: r.status,
            ...(r.error ? { error: r.error } : {}),
            ...(r.exposed ? { session_id: r.sessionId } : {}),
          })),
        };
      },
    }),
    functionTool({
      ...common,
      concurrencySafe: true,
      name: "agent_wait",
      description:
        "Waits for a spawned sub-agent to end (up to timeout_seconds, default 30, at most 600) and returns its result; " +
        "without an id, waits for the first of the running ones.",
      input: z.object({ subagent_id: SubagentId.optional(), timeout_seconds: Timeout.optional() }),
      async execute({ subagent_id, timeout_seconds }, ctx) {
        await spawner.refresh?.(ctx.state, ctx.sessionId);
        const records = spawner.records(ctx.state, ctx.sessionId);
        const runs = subagent_id
          ? [runOrRecord(spawner, ctx, records, subagent_id)]
          : records.filter((r) => r.status === "running").map((r) => spawner.run(ctx.sessionId, r.id)!);
        const waiting = runs.filter((run): run is SpawnHandle => "done" in run);
        const finished = runs.find((run): run is SpawnRecord => !("done" in run));
        if (finished) return outcomeText(deliver(finished, ctx));
        if (waiting.length === 0) return "No sub-agent of this session is running.";
        const ended = await waitForAny(waiting, timeout_seconds ?? 30, ctx.signal);
        if (!ended)
          return `Still running after ${timeout_seconds ?? 30} s: ${waiting.map((r) => r.record.id).join(", ")}.`;
        return outcomeText(deliver(ended.record, ctx));
      },
    }),
    functionTool({
      ...common,
      // Two messages to one sub-agent must not race for its session: one at a time.
      concurrencySafe: false,
      name: "agent_message",
      description:
        "Sends a spawned sub-agent a message: a new turn of its own session, which keeps everything it did before. " +
        "Only a sub-agent that is not running takes one (agent_wait for a running one first). Waits for its answer " +
        "like agent_spawn (up to timeout_seconds; wait: false returns at once), else its answer is given to you later.",
      input: z.object({
        subagent_id: SubagentId,
        text: z.string().min(1).max(100_000).describe("The message: what you want it to do or answer next"),
        wait: z.boolean().optional().describe("Wait for its answer (default true)"),
        timeout_seconds: Timeout.optional(),
      }),
      async execute({ subagent_id, text, wait, timeout_seconds }, ctx) {
        if (!spawner.message) throw new ToolError("agent_message is not available on this host");
        await spawner.refresh?.(ctx.state, ctx.sessionId);
        const records = spawner.records(ctx.state, ctx.sessionId);
        const found = runOrRecord(spawner, ctx, records, subagent_id);
        if ("done" in found) throw new ToolError(busy(found.record));
        // A message sets one going again: the session's running and token limits hold as for a spawn.
        const limit = overLimit(spawner.limits, {
          depth: 0,
          inThisReply: 0,
          started: 0,
          running: records.filter((r) => r.status === "running").length,
          tokens: usedTokens(records),
        });
        if (limit) throw new ToolError(limit);
        const started = await spawner.message(found, text, ctx);
        if (typeof started === "string") throw new ToolError(started);
        if (wait === false) return promoted(started, "it works on your message in the background");
        return awaitOutcome(started, timeout_seconds ?? spawner.limits.defaultTimeoutSeconds, ctx);
      },
    }),
    functionTool({
      ...common,
      concurrencySafe: true,
      name: "agent_cancel",
      description: "Cancels a running sub-agent of this session.",
      input: z.object({ subagent_id: SubagentId, reason: z.string().max(500).optional() }),
      async execute({ subagent_id, reason }, ctx) {
        await spawner.refresh?.(ctx.state, ctx.sessionId);
        const found = runOrRecord(spawner, ctx, spawner.records(ctx.state, ctx.sessionId), subagent_id);
        if (!("done" in found)) return `${subagent_id} is not running (${found.status}).`;
        found.cancel(reason ?? "cancelled by its parent");
        const record = await found.done;
        return outcomeText(deliver(record, ctx));
      },
    }),
  ];
}

/** Why a sub-agent takes no message now (it is running a reply). */
function busy(record: SpawnRecord): string {
  return `${record.id} is still running; it takes a message once it has ended: agent_wait for it, or agent_cancel it`;
}

/** The live run of `id`, or its record when it no longer runs here; a ToolError for an unknown id. */
function runOrRecord(
  spawner: SpawnHost,
  ctx: ToolContext,
  records: SpawnRecord[],
  id: string,
): SpawnHandle | SpawnRecord {
  const record = records.find((r) => r.id === id);
  if (!record) {
    const known = records.map((r) => r.id).join(", ") || "none";
    throw new ToolError(`no sub-agent "${id}" in this session (spawned: ${known})`);
  }
  const run = spawner.run(ctx.sessionId, id);
  return run && run.record.status === "running" ? run : record;
}
