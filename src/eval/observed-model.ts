import type { Msg } from "../message/index.js";
import type { ChatChunk, ChatFinal, ChatModel, ChatOptions, ToolSchema } from "../model/index.js";
import type { RecordedRequest, RecordedToolCall, RecordedTurn } from "./case.js";
import { normalizeRequest, parseArguments } from "./normal-msg.js";

/** One model call as the eval saw it: the request, the answer (when it came) and how long it took. */
export interface ObservedCall {
  request: RecordedRequest;
  /** The final chunk; absent when the call failed. */
  final?: ChatFinal;
  error?: string;
  latencyMs: number;
}

/** The answer of one call as a recorded turn (its tool calls without decisions or results yet). */
export function turnOfCall(call: ObservedCall): RecordedTurn {
  const turn: RecordedTurn = { request: call.request };
  if (!call.final) return turn;
  const thinking: string[] = [];
  const text: string[] = [];
  const toolCalls: RecordedToolCall[] = [];
  for (const block of call.final.content) {
    if (block.type === "thinking") thinking.push(block.thinking);
    else if (block.type === "text") text.push(block.text);
    else if (block.type === "tool_call" && block.executedBy !== "provider")
      toolCalls.push({ id: block.id, name: block.name, input: parseArguments(block.input) });
  }
  if (toolCalls.length > 0) turn.toolCalls = toolCalls;
  if (thinking.length > 0) turn.thinking = thinking.join("\n");
  if (text.length > 0) turn.text = text.join("\n");
  turn.usage = { inputTokens: call.final.usage.inputTokens, outputTokens: call.final.usage.outputTokens };
  return turn;
}

/**
 * Wraps a ChatModel and records every call the agent makes through it: the request (system prompt,
 * tools offered, messages) and the final answer. The stream passes through unchanged.
 */
export class ObservedModel implements ChatModel {
  readonly calls: ObservedCall[] = [];
  readonly name: string;
  readonly provider: string;
  readonly contextSize: number;
  readonly nativeStructuredOutput: ChatModel["nativeStructuredOutput"];

  constructor(readonly inner: ChatModel) {
    this.name = inner.name;
    this.provider = inner.provider;
    this.contextSize = inner.contextSize;
    this.nativeStructuredOutput = inner.nativeStructuredOutput;
  }

  countTokens(messages: Msg[], tools?: ToolSchema[]): number {
    return this.inner.countTokens(messages, tools);
  }

  async *stream(messages: Msg[], options: ChatOptions = {}): AsyncGenerator<ChatChunk> {
    const call: ObservedCall = { request: normalizeRequest(messages, options.tools), latencyMs: 0 };
    this.calls.push(call);
    const started = performance.now();
    try {
      for await (const chunk of this.inner.stream(messages, options)) {
        if (chunk.type === "final") call.final = chunk;
        yield chunk;
      }
    } catch (error) {
      call.error = (error as Error)?.message ?? String(error);
      throw error;
    } finally {
      call.latencyMs = performance.now() - started;
    }
  }
}
