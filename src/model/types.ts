import type {
  ContentBlock,
  DataBlock,
  Msg,
  StopReason,
  TextBlock,
  ThinkingBlock,
  ToolCallBlock,
  ToolResultBlock,
  Usage,
} from "../message/index.js";

/** A JSON Schema object (draft 2020-12 or draft-07), as sent to a provider. */
export type JsonSchema = Record<string, unknown>;

/** A tool as a model sees it. */
export interface ToolSchema {
  name: string;
  description: string;
  parameters: JsonSchema;
}

export type ToolChoice = "auto" | "none" | "required" | { name: string };

/**
 * Sampling options beyond temperature and max tokens, typed once for every provider. A provider
 * that has no such option rejects it with an invalid_request error naming it (see docs/providers.md
 * for the table); model options take the same fields as defaults (`sampling`).
 */
export interface SamplingOptions {
  /** Nucleus sampling: only the tokens within this cumulative probability (0 to 1). */
  topP?: number;
  /** Only the K most likely tokens (Anthropic, Gemini, Ollama, DashScope). */
  topK?: number;
  /** Generation stops before any of these strings. */
  stopSequences?: string[];
  /** Best-effort reproducible sampling. */
  seed?: number;
  /** -2 to 2: penalises tokens that appeared at all. */
  presencePenalty?: number;
  /** -2 to 2: penalises tokens by how often they appeared. */
  frequencyPenalty?: number;
}

/**
 * Native structured output: the provider constrains the reply text to JSON that fits `schema`
 * (OpenAI Chat `response_format` / Responses `text.format` json_schema, Gemini `responseSchema`,
 * Ollama `format`). Providers without it (Anthropic, DashScope) reject it: use the injected-tool mode.
 */
export interface ResponseFormat {
  type: "json_schema";
  /** A short name for the schema (OpenAI requires one; ^[a-zA-Z0-9_-]{1,64}$). */
  name: string;
  schema: JsonSchema;
  description?: string;
  /** OpenAI strict mode (default true): the schema must then close every object. */
  strict?: boolean;
}

/**
 * Whether a model takes `responseFormat` (native structured output): `"with_tools"` in the same call
 * as tool schemas (OpenAI Chat and Responses, Gemini 3), `"without_tools"` only on a call without
 * them (Gemini 2.x answers "Function calling with a response mime type: 'application/json' is
 * unsupported"; Ollama), `false` not at all (Anthropic, DashScope). The agent's structured-output
 * mode `"auto"` reads it.
 */
export type NativeStructuredOutput = "with_tools" | "without_tools" | false;

/**
 * A tool the provider runs itself (not a ToolSchema the agent runs): OpenAI Responses web search,
 * file search, code interpreter, image generation; Anthropic web search, web fetch, code execution;
 * Gemini Google Search, URL context, code execution. A provider without it rejects it.
 */
export type BuiltinTool =
  | { type: "web_search"; maxUses?: number }
  | { type: "web_fetch" }
  | { type: "url_context" }
  | { type: "code_execution" }
  | { type: "file_search"; vectorStoreIds: string[] }
  | { type: "image_generation" };

export interface ChatOptions extends SamplingOptions {
  tools?: ToolSchema[];
  toolChoice?: ToolChoice;
  signal?: AbortSignal;
  maxTokens?: number;
  temperature?: number;
  /** Ask for JSON text that fits a schema (see ResponseFormat). */
  responseFormat?: ResponseFormat;
  /** Provider-specific request fields merged into the body last (escape hatch). */
  extraBody?: Record<string, unknown>;
}

/** Why the model stopped generating (the Msg's `stopReason` vocabulary). */
export type ModelStopReason = StopReason;

/** A fragment of streamed output; `blockId` is stable for every fragment of one block. */
export type ChatDelta =
  | { type: "text"; blockId: string; delta: string }
  | { type: "thinking"; blockId: string; delta: string }
  /** `name` is set on (at least) the first fragment of each call; `blockId` is the tool call id. */
  | { type: "tool_call"; blockId: string; name?: string; delta: string }
  | { type: "data"; blockId: string; mediaType: string; delta: string };

/** The last chunk of every stream: the whole response. */
export interface ChatFinal {
  type: "final";
  /**
   * Every block of the response, complete, with provider extras (thinking signatures, item ids), in
   * the provider's order. Built-in tool runs are a tool_call and a tool_result with
   * `executedBy: "provider"` (never streamed as deltas; the agent does not run them).
   */
  content: Array<TextBlock | ThinkingBlock | DataBlock | ToolCallBlock | ToolResultBlock>;
  usage: Usage;
  stopReason: ModelStopReason;
  /** The model that actually answered, when the provider says. */
  model?: string;
  /** The provider's id of this response (OpenAI Responses `resp_...`), for server-side conversation state. */
  responseId?: string;
  /**
   * The provider paused its own turn (Anthropic `pause_turn`: a long server tool run): the agent
   * sends the reply back as it is, and the model goes on with it.
   */
  continueTurn?: boolean;
}

export type ChatChunk = ChatDelta | ChatFinal;

/**
 * A chat stream that can also hand over the chunks of each network read at once. Consumers on a
 * hot path (the agent) use `batches()` to pay one await per read instead of one per delta. The
 * arrays may be reused: read each before asking for the next.
 */
export interface BatchedChatStream extends AsyncIterable<ChatChunk> {
  batches(): AsyncIterable<readonly ChatChunk[]>;
}

export function isBatchedStream(stream: AsyncIterable<ChatChunk>): stream is BatchedChatStream {
  return typeof (stream as Partial<BatchedChatStream>).batches === "function";
}

/**
 * A chat model. `stream` yields delta chunks then exactly one final chunk. It must honour
 * `opts.signal` and throw an AgentScopeError (with an ErrorInfo kind) on failure; retries of
 * transient failures happen inside the model.
 */
export interface ChatModel {
  /** The model name sent to the provider (`gpt-4o`, `claude-sonnet-4-5`, ...). */
  readonly name: string;
  /** Provider family (`openai`, `anthropic`, `gemini`, `ollama`, `dashscope`, `scripted`, ...). */
  readonly provider: string;
  /** The context window in tokens. */
  readonly contextSize: number;
  stream(messages: Msg[], opts?: ChatOptions): AsyncIterable<ChatChunk>;
  /** Native structured output support (see NativeStructuredOutput); undefined: not known. */
  readonly nativeStructuredOutput?: NativeStructuredOutput;
  /** A fast local estimate of the input tokens (no network). */
  countTokens(messages: Msg[], tools?: ToolSchema[]): number;
  /**
   * The input tokens as the provider counts them (Anthropic `count_tokens`, Gemini `countTokens`),
   * where it has an endpoint. Must not fail on a provider error: it falls back to `countTokens`
   * (only an abort rejects).
   */
  countInputTokens?(messages: Msg[], tools?: ToolSchema[], opts?: { signal?: AbortSignal }): Promise<number>;
}

export type { ContentBlock };
