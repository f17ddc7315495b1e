import type { z } from "zod";
import type { ChatModel } from "../model/core.js";
import type { PricingTable } from "../model/pricing/index.js";
import type {
  ApproverOptions,
  PermissionContext,
  PermissionDecision,
  PermissionOptions,
  PermissionSubject,
} from "../permission/index.js";
import type { AgentState } from "../state/index.js";
import type { Skill, Tool, Toolkit } from "../tool/index.js";
import type { ContextOptions } from "./compression.js";
import type { GuardrailOptions } from "./guardrail.js";
import type { Middleware } from "./middleware.js";
import type { StructuredOutputMode } from "./native-structured-output.js";
import type { PauseChangePolicy } from "./pause-change-policy.js";
import type { TaintOptions } from "./taint-options.js";

export type { ReplyInput } from "./reply-input.js";

export interface ReplyOptions<S extends z.ZodType | undefined = undefined> {
  signal?: AbortSignal;
  /** Ask for a final answer that fits this schema; the Msg's `structuredOutput` is typed from it. */
  structuredOutput?: S;
  /**
   * How the structured output is produced (see StructuredOutputMode): `"tool"` (default, as before:
   * the injected `generate_structured_output` tool), `"native"` (the provider's `responseFormat`),
   * `"auto"` (native where the model supports it for this reply, else tool). A resumed reply keeps
   * the mode it started with.
   */
  structuredOutputMode?: StructuredOutputMode;
  /** Run the reply on this session state instead of `agent.state` (one agent, many sessions). */
  state?: AgentState;
  /** Slash path of this agent when it runs as a sub-agent (`main/researcher`); tools see it as `ctx.source`. */
  source?: string;
  /** Save the state at every step that matters (overrides the agent's `checkpoint` for this call). */
  checkpoint?: (state: AgentState, reason: CheckpointReason) => void | Promise<void>;
  /**
   * `reply()` only: when the reply ends with `finishedReason: "error"` (the model failed, a key was
   * rejected...), throw its error as an `AgentScopeError` (`.info.type`: authentication, rate_limit,
   * connection...) instead of resolving with the Msg. Without it, check `msg.finishedReason`/`msg.error`.
   */
  throwOnError?: boolean;
}

/** Where the agent is when it saves a checkpoint. */
export type CheckpointReason =
  | "reply_start"
  | "model_call"
  /** A tool that is not read-only is about to run: its effect id is stored (src/agent/effects.ts). */
  | "tool_start"
  | "tool_result"
  | "pause"
  | "reply_end";

/** Decides one tool call: the permission engine by default. */
export type PermissionDecider = (
  subject: PermissionSubject,
  input: unknown,
  context: PermissionContext,
) => Promise<PermissionDecision>;

export interface AgentOptions {
  name: string;
  systemPrompt?: string;
  /**
   * The model: a ChatModel, or a spec string such as `"openai:gpt-4o-mini"` (checked when the Agent
   * is built, built through `modelFromSpec` on the first reply; see SpecChatModel).
   */
  model: ChatModel | string;
  /** Used when the model fails after its own retries (a ChatModel or a spec string). */
  fallbackModel?: ChatModel | string;
  /** The tools the model may call (the service config calls this `tools`; the Agent does not take `tools`). */
  toolkit?: Toolkit | Tool[];
  /** Reasoning-acting iterations per reply (default 50). */
  maxIters?: number;
  /**
   * Permission mode, rules and working directories for new sessions. Rules may be strings
   * (`"Bash(git status:*)"`, `"deny:Bash(rm:*)"`) or objects; they are checked once, here, and a bad
   * one throws an error naming it.
   */
  permission?: PermissionOptions;
  /** Replace the permission engine (tests, custom policies). */
  decidePermission?: PermissionDecider;
  /**
   * Who may answer which asks (approver policies, first match wins) and where answerers' roles come
   * from; an answer a policy does not take is a `policy_refusal` record and its call keeps waiting.
   */
  approvers?: ApproverOptions;
  /**
   * A paused call whose tool (schema, permission behaviour), or the agent's rules, mode or model,
   * changed before it was answered (a deploy in between): `ask_again` (default) asks the person again
   * with the difference shown; `continue` takes the answer. A call whose tool is gone never runs.
   */
  onPauseChange?: PauseChangePolicy;
  /** Start from this state (e.g. loaded from a store). */
  state?: AgentState;
  sessionId?: string;
  /** Called (and awaited) at every step that matters, so a store can save the state. */
  checkpoint?: (state: AgentState, reason: CheckpointReason) => void | Promise<void>;
  /** Middleware around the stages of every reply, outermost first. */
  middlewares?: Middleware[];
  /** Context compression and image limits. */
  context?: ContextOptions;
  /**
   * Guardrails on the user's message, the answer, tool inputs and tool results (see GuardrailOptions
   * and docs/guardrails.md). Absent: the reply's stages are the plain ones, nothing is checked.
   */
  guardrails?: GuardrailOptions;
  /**
   * Taint tracking: content from untrusted sources (a web fetch tool, an untrusted MCP server, a file
   * outside the workspace, the provider's web tools) marks the reply, and calls that would be allowed
   * ask while it is marked (see TaintOptions and docs/guardrails.md, "Taint"). Absent: no tracking.
   */
  taint?: TaintOptions;
  /**
   * Prices model calls (see `pricingTable()`): every MODEL_CALL_END then carries `cost` and the reply
   * Msg their sum; a model without a price says "no price" (`usd: null`). Absent: no cost figures.
   */
  pricing?: PricingTable;
  /** Skills (see `loadSkills`): their names and descriptions join the system prompt and a `Skill` tool loads one on demand. */
  skills?: Skill[];
}
