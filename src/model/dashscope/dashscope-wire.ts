/** The DashScope native generation request this package sends. */

/** Multimodal content items (multimodal-generation endpoint). */
export type DashScopeContentItem =
  | { text: string }
  | { image: string }
  | { audio: string }
  | { video: string };

export interface DashScopeToolCall {
  id: string;
  type: "function";
  function: { name: string; arguments: string };
}

export interface DashScopeMessage {
  role: "system" | "user" | "assistant" | "tool";
  content: string | DashScopeContentItem[];
  reasoning_content?: string;
  tool_calls?: DashScopeToolCall[];
  tool_call_id?: string;
  name?: string;
}

export interface DashScopeRequest {
  model: string;
  input: { messages: DashScopeMessage[] };
  parameters: {
    result_format: "message";
    incremental_output: true;
    tools?: Array<{
      type: "function";
      function: { name: string; description: string; parameters: Record<string, unknown> };
    }>;
    tool_choice?: "auto" | "none" | { type: "function"; function: { name: string } };
    enable_thinking?: boolean;
    thinking_budget?: number;
    max_tokens?: number;
    temperature?: number;
    [extra: string]: unknown;
  };
}
