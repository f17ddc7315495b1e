/**
 * Content blocks: the typed parts of a Msg. A discriminated union on `type`; plain JSON data only.
 * Every block has an `id`; for tool_call and tool_result the id is the tool call id that pairs them.
 */

/** A source the model cited for (part of) a text block: web search, URL context, a file or document. */
export interface Citation {
  url?: string;
  title?: string;
  /** The passage the citation supports or quotes, when the provider gives it. */
  citedText?: string;
  /** Character range of the supported text in the block, when the provider gives one. */
  start?: number;
  end?: number;
}

/**
 * Provider extras of a text block, kept so the next request sends the text back as the provider
 * gave it (all optional; a provider ignores extras stamped with another `provider`).
 */
export interface TextBlockExtras {
  /** The text is a refusal (OpenAI `refusal`), not an answer. */
  refusal?: boolean;
  /** OpenAI Responses message item id (`msg_...`). */
  itemId?: string;
  /** OpenAI Responses message item status (`completed`, `incomplete`). */
  itemStatus?: string;
  /** OpenAI Responses message phase (`commentary`, `final_answer`): resent as given. */
  phase?: string;
  /** Provider family that produced `itemId` / `itemStatus` / `phase`. */
  provider?: string;
  /** Sources the text cites (OpenAI url/file citations, Anthropic citations, Gemini grounding). */
  citations?: Citation[];
}

export interface TextBlock extends TextBlockExtras {
  type: "text";
  id: string;
  text: string;
}

/** Model reasoning. Provider extras let a provider receive its own thinking back on the next turn. */
export interface ThinkingBlock {
  type: "thinking";
  id: string;
  thinking: string;
  /** Anthropic thinking signature, or OpenAI Responses `encrypted_content`. */
  signature?: string;
  /** Anthropic redacted thinking payload (the block then has empty `thinking`). */
  redactedData?: string;
  /** OpenAI Responses reasoning item id. */
  itemId?: string;
  /** Provider family that produced it (`openai`, `anthropic`, ...); other providers get it as text or not at all. */
  provider?: string;
}

/** Instructions injected into the loop as user context (e.g. by a middleware). */
export interface HintBlock {
  type: "hint";
  id: string;
  text: string;
}

export type DataSource =
  | { type: "base64"; mediaType: string; data: string }
  | { type: "url"; mediaType?: string; url: string };

/** Binary data (image, audio, video, PDF) inline as base64 or by URL. */
export interface DataBlock {
  type: "data";
  id: string;
  source: DataSource;
  name?: string;
}

/** pending → asking | submitted | allowed → finished */
export type ToolCallState = "pending" | "asking" | "allowed" | "submitted" | "finished";

/**
 * Marks a tool run the model provider did itself (a built-in tool: web search, code execution...).
 * The agent never runs, permission-checks or waits on such a call; the formatter of the same
 * `provider` sends `providerData` back as the wire item it came as, others get a text summary.
 */
export interface ProviderExecution {
  /** Set when the provider ran the tool server-side; absent for the agent's own tools. */
  executedBy?: "provider";
  /** Provider family that ran it (`openai`, `anthropic`, `gemini`). */
  provider?: string;
  /** The exact wire item or block (JSON) the provider sent, for the round trip. */
  providerData?: unknown;
}

export interface ToolCallBlock extends ProviderExecution {
  type: "tool_call";
  /** The tool call id; the matching tool_result carries the same id. */
  id: string;
  name: string;
  /** The raw JSON arguments as the model produced them (may be invalid JSON: the loop reports that). */
  input: string;
  state: ToolCallState;
}

export type ToolResultState = "success" | "error" | "interrupted" | "denied" | "running";

export type ToolResultOutput = string | Array<TextBlock | DataBlock>;

export interface ToolResultBlock extends ProviderExecution {
  type: "tool_result";
  /** Id of the tool_call this result answers. */
  id: string;
  name: string;
  output: ToolResultOutput;
  state: ToolResultState;
}

export type ContentBlock =
  | TextBlock
  | ThinkingBlock
  | HintBlock
  | DataBlock
  | ToolCallBlock
  | ToolResultBlock;
export type BlockType = ContentBlock["type"];
export type BlockOfType<T extends BlockType> = Extract<ContentBlock, { type: T }>;

/** Whether a tool_call / tool_result is a provider's built-in tool run (never run by the agent). */
export function isProviderExecuted(
  block: ContentBlock,
): block is (ToolCallBlock | ToolResultBlock) & { executedBy: "provider" } {
  return (block.type === "tool_call" || block.type === "tool_result") && block.executedBy === "provider";
}
