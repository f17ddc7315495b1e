import type { AgentEvent } from "../event/index.js";
import type { Msg, ToolCallBlock } from "../message/index.js";
import type { ChatChunk } from "../model/core.js";
import type { DecidedCall, PermissionContext, PermissionDecision } from "../permission/index.js";
import type { Tool, ToolContext } from "../tool/index.js";
import type { ModelCallRequest } from "./middleware.js";
import type { ReplyInput } from "./reply-input.js";

/**
 * The stages of a reply that middleware may wrap, as the run calls them. Chosen once, when the run is
 * built: straight calls for an agent without middleware (no chain, no closures, no hook loops), the
 * middleware chains otherwise. The loop never asks which one it has.
 */
export interface ReplyStages {
  /** Whether middleware wraps the stages; without, an answer with nothing to run ends the reply at once. */
  readonly wrapped: boolean;
  /** Sees each event before it is folded into the reply; undefined when nothing watches events. */
  readonly onEvent: ((event: AgentEvent) => void) | undefined;
  /** The whole reply: the run's events for `input` (`next`), through every `onReply` hook. */
  reply(input: ReplyInput, next: (input: ReplyInput) => AsyncIterable<AgentEvent>): AsyncIterable<AgentEvent>;
  /** The system prompt of the next model call. */
  systemPrompt(prompt: string): string;
  /** Before each reasoning step; undefined when there is nothing to wait for. */
  beforeReasoning(iteration: number): Promise<void> | undefined;
  /** After each reasoning step, with the reply as it stands; undefined when there is nothing to wait for. */
  afterReasoning(reply: Msg): Promise<void> | undefined;
  /** One model call: the stream of its chunks. */
  callModel(request: ModelCallRequest): AsyncIterable<ChatChunk>;
  /** The decision for one call's input (the `decide` of DecidedCall). */
  decide(tool: Tool, input: unknown, context: PermissionContext): Promise<PermissionDecision>;
  /**
   * Runs an admitted call under its decision (`decided` refuses any input but the decided one): the
   * value the tool returned, its promise, or its stream.
   */
  callTool(call: ToolCallBlock, tool: Tool, input: unknown, ctx: ToolContext, decided: DecidedCall): unknown;
}
