import type { z } from "zod";
import type { ChatFinal, ChatModel, ChatOptions, ResponseFormat, ToolSchema } from "../model/core.js";
import { type Tool, toolSchemaOf } from "../tool/index.js";
import {
  NATIVE_FINAL_HINT,
  nativeRetryHint,
  parseNativeAnswer,
  responseFormatFor,
} from "./native-structured-output.js";
import { STRUCTURED_OUTPUT_HINT, structuredOutputTool } from "./structured-output.js";

/** The part of a model call's options that the answer shapes. */
export type AnswerRequest = Pick<ChatOptions, "tools" | "toolChoice" | "responseFormat">;

/**
 * What a reply's answer must be, as one strategy (the AI SDK's `Output` is the model): what it adds
 * to each model call, how it recognises and validates the answer, and when it asks again with a hint.
 * Three kinds: a plain answer (no schema), structured output by an injected tool, and structured output
 * by the provider's `responseFormat` (native). One per run: it may remember what it asked for.
 */
export interface ReplyOutput {
  /** The tool the model answers with (tool mode), or undefined. */
  readonly tool: Tool | undefined;
  /** Whether an answer without tool calls may be followed by another call (else it ends the reply). */
  readonly mayAskAgain: boolean;
  /** The structured output, once an answer fits the schema. */
  readonly result: { value: unknown } | undefined;
  /** The tools, tool choice and response format of a model call; `last`: the last iteration. */
  request(tools: ToolSchema[], last: boolean): AnswerRequest;
  /**
   * The model answered without tool calls, to a call made with `request`: the hint to call it again
   * with, or undefined when the reply ends (with `result` set when the answer fits).
   */
  answered(final: ChatFinal, request: AnswerRequest): string | undefined;
  /** The answer tool ran with these arguments (tool mode): they are the structured output. */
  recordCall(input: unknown): void;
}

/** The output strategy of a reply: `schema` absent, a plain answer; else structured in `mode`. */
export function replyOutput(
  schema: z.ZodType | undefined,
  mode: "tool" | "native",
  model: ChatModel,
): ReplyOutput {
  if (schema === undefined) return PLAIN;
  return mode === "native" ? new NativeOutput(schema, model) : new ToolOutput(schema);
}

/** No schema: the answer is the text; whatever the model says without tool calls ends the reply. */
const PLAIN: ReplyOutput = {
  tool: undefined,
  mayAskAgain: false,
  result: undefined,
  request: (tools) => (tools.length > 0 ? { tools } : {}),
  answered: () => undefined,
  recordCall: () => {},
};

/** Tool mode: the model answers by calling `generate_structured_output`, forced on the last iteration. */
class ToolOutput implements ReplyOutput {
  readonly tool: Tool;
  readonly mayAskAgain = true;
  result: { value: unknown } | undefined;
  readonly #schema: ToolSchema;

  constructor(schema: z.ZodType) {
    this.tool = structuredOutputTool(schema);
    this.#schema = toolSchemaOf(this.tool);
  }

  request(tools: ToolSchema[], last: boolean): AnswerRequest {
    const request: AnswerRequest = { tools: [...tools, this.#schema] };
    if (last) request.toolChoice = { name: this.tool.name };
    return request;
  }

  answered(): string | undefined {
    return this.result ? undefined : STRUCTURED_OUTPUT_HINT;
  }

  recordCall(input: unknown): void {
    this.result = { value: input };
  }
}

/**
 * Native mode: the provider constrains the answer text to the schema (`responseFormat`), sent with the
 * tools where the model takes both; otherwise on a call without tools once the model has answered (and
 * on the last iteration, so it must answer). The answer is parsed and validated; a bad one is asked for
 * again with a hint naming the bad field. A refusal or a content filter ends the reply without an output.
 */
class NativeOutput implements ReplyOutput {
  readonly tool = undefined;
  readonly mayAskAgain = true;
  result: { value: unknown } | undefined;
  /** The model answered on a call without the format, so the next call has it and no tools. */
  #answerNext = false;
  #format: ResponseFormat | undefined;

  constructor(
    private readonly schema: z.ZodType,
    private readonly model: ChatModel,
  ) {}

  request(tools: ToolSchema[], last: boolean): AnswerRequest {
    const alone = last || this.#answerNext;
    const together = this.model.nativeStructuredOutput === "with_tools" || tools.length === 0;
    const request: AnswerRequest = {};
    if (!alone && tools.length > 0) request.tools = tools;
    if (alone || together) {
      this.#format ??= responseFormatFor(this.schema);
      request.responseFormat = this.#format;
    }
    return request;
  }

  answered(final: ChatFinal, request: AnswerRequest): string | undefined {
    if (this.result) return undefined;
    if (final.stopReason === "refusal" || final.stopReason === "content_filter") return undefined;
    if (request.responseFormat === undefined) {
      this.#answerNext = true;
      return NATIVE_FINAL_HINT;
    }
    const answer = parseNativeAnswer(this.schema, final.content);
    if (answer.ok) {
      this.result = { value: answer.value };
      return undefined;
    }
    const error =
      final.stopReason === "length"
        ? `it was cut off at the output token limit (${answer.error})`
        : answer.error;
    return nativeRetryHint(error);
  }

  recordCall(): void {}
}
