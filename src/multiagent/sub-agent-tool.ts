import { z } from "zod";
import { type Msg, userMsg } from "../message/index.js";
import type { PermissionContext } from "../permission/index.js";
import { functionTool, type Tool, type ToolContext, ToolError } from "../tool/index.js";
import type { AgentLike } from "./agent-like.js";
import { finalText } from "./final-text.js";
import { narrowPermission } from "./narrow-permission.js";
import { runNested } from "./run-nested.js";

const PromptInput = z.object({ prompt: z.string().min(1).describe("What the sub-agent should do, in full") });

export interface SubAgentToolOptions<I extends z.ZodType = typeof PromptInput> {
  /** The tool's name (default: the agent's name); also the last segment of the sub-run's `source`. */
  name?: string;
  description: string;
  /** A typed input instead of `{ prompt }`; the sub-agent receives it as JSON in a user message. */
  input?: I;
  /** Ask the sub-agent for structured output: the tool result is that value instead of its final text. */
  output?: z.ZodType;
  /** Stream the sub-run's events through the parent's stream (default true). */
  expose?: boolean;
  /**
   * The sub-run's own permission settings (default: what the agent's `createState` gives). At each
   * call they are narrowed by the parent's (see `narrowPermission`): a sub-agent never gets wider.
   */
  permission?: Partial<PermissionContext>;
  /**
   * Whether the parent's permission engine treats the delegation as read-only (default true: the
   * call itself changes nothing; every tool of the sub-run is gated by the sub-run's own, narrowed,
   * permission). Set false to have the parent ask before it delegates.
   */
  readOnly?: boolean;
  /** Several calls may run at once (default true: each call gets its own session). */
  concurrencySafe?: boolean;
}

/**
 * A tool that runs a reply of `agent`: the parent's model calls it with a prompt (or a typed
 * input), the sub-agent runs in a fresh session, and its final text (or structured output) is the
 * tool result. Its events stream out nested (`source` = `<parent>/<name>`, SUBAGENT_EXPOSED first);
 * its pauses pause the parent and come back by replyId; an interrupt of the parent interrupts it;
 * its usage is added to the parent's reply.
 */
export function subAgentTool<I extends z.ZodType = typeof PromptInput>(
  agent: AgentLike,
  options: SubAgentToolOptions<I>,
): Tool<z.infer<I>> {
  const name = options.name ?? agent.name;
  if (!/^[A-Za-z0-9_-]{1,64}$/.test(name)) {
    throw new TypeError(`subAgentTool: name "${name}" must be 1-64 letters, digits, "_" or "-"`);
  }
  const schema = (options.input ?? PromptInput) as I;
  const tool = functionTool({
    name,
    description: options.description,
    input: schema,
    readOnly: options.readOnly ?? true,
    concurrencySafe: options.concurrencySafe ?? true,
    // The prompt names no place itself: each of the sub-agent's own calls is decided on its paths.
    pathsOf: () => [],
    async execute(input, ctx) {
      const prompt = options.input ? JSON.stringify(input) : (input as z.infer<typeof PromptInput>).prompt;
      const outcome = await runNested(agent, userMsg(prompt), ctx, {
        name,
        ...(options.expose !== undefined ? { expose: options.expose } : {}),
        ...(options.output ? { structuredOutput: options.output } : {}),
        newState: () => subState(agent, options.permission, ctx),
      });
      if (outcome.paused) return "";
      return toolResultOf(name, outcome.reply, options.output !== undefined);
    },
  });
  return Object.assign(tool, { delegatesTo: [agent.name] });
}

/** A fresh session for a sub-run, its permission narrowed by the parent's. */
export function subState(agent: AgentLike, own: Partial<PermissionContext> | undefined, ctx: ToolContext) {
  const state = agent.createState();
  state.permission = narrowPermission({ ...state.permission, ...own }, ctx.permission);
  state.toolContext[PARENT_SESSION_KEY] = ctx.sessionId;
  return state;
}

/** Where a sub-run's session keeps the session id of the parent that delegated to it (its tool data). */
export const PARENT_SESSION_KEY = "agentscope.parentSessionId";

/** The tool result for a finished sub-run: its final text or structured output; failures are errors the model reads. */
export function toolResultOf(name: string, reply: Msg, structured: boolean): unknown {
  const reason = reply.finishedReason;
  if (reason === "error") {
    throw new ToolError(`"${name}" failed: ${reply.error?.message ?? "unknown error"}`);
  }
  if (reason === "interrupted") return `[${name} was interrupted] ${finalText(reply)}`.trimEnd();
  if (reason === "exceed_max_iters") {
    return `[${name} stopped at its iteration limit] ${finalText(reply)}`.trimEnd();
  }
  if (structured && reply.structuredOutput !== undefined) return reply.structuredOutput;
  return finalText(reply);
}
