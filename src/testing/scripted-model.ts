import type { ErrorInfo, Msg, ThinkingBlock, ToolCallBlock, Usage } from "../message/index.js";
import { AgentScopeError, newId } from "../message/index.js";
import type {
  ChatChunk,
  ChatFinal,
  ChatModel,
  ChatOptions,
  ModelStopReason,
  NativeStructuredOutput,
  ToolSchema,
} from "../model/core.js";
import { estimateTokens } from "../model/core.js";

export interface ScriptedToolCall {
  id?: string;
  name: string;
  /** Arguments: an object (sent as JSON) or a raw string (sent as is, e.g. broken JSON). */
  input?: unknown;
}

/** One model turn. Blocks stream in this order: thinking, text, tool calls. */
export interface ScriptedTurn {
  thinking?: string;
  /** Provider extras for the thinking block (e.g. a signature). */
  thinkingExtras?: Pick<ThinkingBlock, "signature" | "redactedData" | "itemId" | "provider">;
  text?: string;
  toolCalls?: ScriptedToolCall[];
  /** Fail the call: before any output, or after `errorAfter` delta chunks. */
  error?: ErrorInfo | Error;
  errorAfter?: number;
  /** Wait this long before each chunk (lets tests interrupt mid-stream). */
  delayMs?: number;
  usage?: Partial<Usage>;
  stopReason?: ModelStopReason;
}

export type ScriptedStep = ScriptedTurn | ((messages: Msg[], options: ChatOptions) => ScriptedTurn);

export interface ScriptedModelOptions {
  name?: string;
  contextSize?: number;
  /** Characters per streamed text/thinking fragment (default 4); tool arguments use the same size. */
  chunkSize?: number;
  /** What the model says it does with `responseFormat` (the agent's structured-output mode "auto" reads it). */
  nativeStructuredOutput?: NativeStructuredOutput;
  /** Play a provider token-count endpoint: the model then has `countInputTokens`, answering with this. */
  countInputTokens?: (messages: Msg[], tools: ToolSchema[]) => number | Promise<number>;
}

/** Everything one call received. */
export interface ScriptedCall {
  messages: Msg[];
  options: Omit<ChatOptions, "signal">;
}

/**
 * A deterministic ChatModel for tests and demos: each call plays the next scripted turn, streamed
 * in small fragments like a real provider (tool arguments too), then one final chunk. It records every
 * input it received in `calls`. Running out of turns is an error that says so.
 */
export class ScriptedModel implements ChatModel {
  readonly name: string;
  readonly provider = "scripted";
  readonly contextSize: number;
  readonly calls: ScriptedCall[] = [];
  readonly nativeStructuredOutput: NativeStructuredOutput | undefined;
  /** Present when the options script a provider count; every count asked is recorded in `counts`. */
  readonly countInputTokens?: (messages: Msg[], tools?: ToolSchema[]) => Promise<number>;
  readonly counts: Array<{ messages: Msg[]; tools: ToolSchema[] }> = [];
  private readonly steps: ScriptedStep[];
  private readonly chunkSize: number;
  private next = 0;

  constructor(steps: ScriptedStep[], options: ScriptedModelOptions = {}) {
    this.steps = steps;
    this.name = options.name ?? "scripted";
    this.contextSize = options.contextSize ?? 128_000;
    this.chunkSize = Math.max(1, options.chunkSize ?? 4);
    this.nativeStructuredOutput = options.nativeStructuredOutput;
    const count = options.countInputTokens;
    if (count) {
      this.countInputTokens = async (messages, tools = []) => {
        this.counts.push({ messages: structuredClone(messages), tools });
        return count(messages, tools);
      };
    }
  }

  /** Turns not yet played. */
  get remaining(): number {
    return this.steps.length - this.next;
  }

  /** Adds more turns at the end of the script. */
  push(...steps: ScriptedStep[]): this {
    this.steps.push(...steps);
    return this;
  }

  countTokens(messages: Msg[], tools?: ToolSchema[]): number {
    return estimateTokens(messages, tools);
  }

  async *stream(messages: Msg[], options: ChatOptions = {}): AsyncGenerator<ChatChunk> {
    const { signal, ...rest } = options;
    this.calls.push({ messages: structuredClone(messages), options: structuredClone(rest) });
    const step = this.steps[this.next];
    if (step === undefined) {
      throw new AgentScopeError({
        type: "internal",
        source: "scripted",
        message: `ScriptedModel "${this.name}" ran out of turns after ${this.next} call(s); add more with push()`,
      });
    }
    this.next += 1;
    const turn = typeof step === "function" ? step(messages, options) : step;
    let emitted = 0;
    const fail = () => {
      const error = turn.error!;
      throw error instanceof Error ? error : new AgentScopeError(error);
    };
    if (turn.error && !turn.errorAfter) fail();

    const content: ChatFinal["content"] = [];
    const plan: ChatChunk[] = [];
    if (turn.thinking !== undefined) {
      const id = newId("think");
      content.push({ type: "thinking", id, thinking: turn.thinking, ...turn.thinkingExtras });
      for (const piece of this.split(turn.thinking))
        plan.push({ type: "thinking", blockId: id, delta: piece });
    }
    if (turn.text !== undefined) {
      const id = newId("text");
      content.push({ type: "text", id, text: turn.text });
      for (const piece of this.split(turn.text)) plan.push({ type: "text", blockId: id, delta: piece });
    }
    for (const call of turn.toolCalls ?? []) {
      const id = call.id ?? newId("call");
      const input = typeof call.input === "string" ? call.input : JSON.stringify(call.input ?? {});
      const block: ToolCallBlock = { type: "tool_call", id, name: call.name, input, state: "pending" };
      content.push(block);
      const pieces = this.split(input);
      plan.push({ type: "tool_call", blockId: id, name: call.name, delta: pieces[0] ?? "" });
      for (const piece of pieces.slice(1)) plan.push({ type: "tool_call", blockId: id, delta: piece });
    }

    for (const chunk of plan) {
      if (turn.delayMs) await sleep(turn.delayMs, signal);
      if (signal?.aborted) throw abortError(signal);
      if (turn.error && emitted === turn.errorAfter) fail();
      emitted += 1;
      yield chunk;
    }
    if (signal?.aborted) throw abortError(signal);
    const hasCalls = content.some((block) => block.type === "tool_call");
    yield {
      type: "final",
      content,
      usage: {
        inputTokens: turn.usage?.inputTokens ?? estimateTokens(messages),
        outputTokens: turn.usage?.outputTokens ?? emitted,
        ...(turn.usage?.cacheReadTokens !== undefined ? { cacheReadTokens: turn.usage.cacheReadTokens } : {}),
      },
      stopReason: turn.stopReason ?? (hasCalls ? "tool_calls" : "stop"),
      model: this.name,
    };
  }

  private split(text: string): string[] {
    const pieces: string[] = [];
    for (let i = 0; i < text.length; i += this.chunkSize) pieces.push(text.slice(i, i + this.chunkSize));
    return pieces;
  }
}

function abortError(signal: AbortSignal): Error {
  const error = new Error(typeof signal.reason === "string" ? signal.reason : "aborted");
  error.name = "AbortError";
  return error;
}

function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(done, ms);
    function done() {
      clearTimeout(timer);
      signal?.removeEventListener("abort", done);
      resolve();
    }
    signal?.addEventListener("abort", done, { once: true });
  });
}
