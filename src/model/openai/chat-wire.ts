/** The Chat Completions request body we send (a subset of the API; checked against the `openai` SDK types in test/). */
export type OpenAIChatContentPart =
  | { type: "text"; text: string }
  | { type: "image_url"; image_url: { url: string } }
  | { type: "input_audio"; input_audio: { data: string; format: "wav" | "mp3" } }
  | { type: "file"; file: { file_data: string; filename: string } };

export interface OpenAIChatToolCall {
  id: string;
  type: "function";
  function: { name: string; arguments: string };
}

export type OpenAIChatMessage =
  | { role: "system"; content: string }
  | { role: "user"; content: string | OpenAIChatContentPart[] }
  | {
      role: "assistant";
      content: string | null;
      /** The model's earlier refusal (a text block with `refusal: true`). */
      refusal?: string;
      tool_calls?: OpenAIChatToolCall[];
      /** DeepSeek / DashScope / Moonshot: the reasoning of this turn, sent back to the provider that made it. */
      reasoning_content?: string;
    }
  | { role: "tool"; tool_call_id: string; content: string };

export type OpenAIChatToolChoice =
  | "auto"
  | "none"
  | "required"
  | { type: "function"; function: { name: string } };

export interface OpenAIChatRequest {
  model: string;
  messages: OpenAIChatMessage[];
  stream: true;
  stream_options: { include_usage: boolean };
  tools?: Array<{
    type: "function";
    function: { name: string; description: string; parameters: Record<string, unknown> };
  }>;
  tool_choice?: OpenAIChatToolChoice;
  max_completion_tokens?: number;
  max_tokens?: number;
  temperature?: number;
  reasoning_effort?: "minimal" | "low" | "medium" | "high";
  [extra: string]: unknown;
}
