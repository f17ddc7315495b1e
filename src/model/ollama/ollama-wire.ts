/** The Ollama /api/chat request this package sends. */

export interface OllamaToolCall {
  /** Our call id; Ollama versions without call ids ignore it. */
  id?: string;
  function: { name: string; arguments: Record<string, unknown> };
}

export interface OllamaMessage {
  role: "system" | "user" | "assistant" | "tool";
  content: string;
  /** Base64 images (no data: prefix). */
  images?: string[];
  thinking?: string;
  tool_calls?: OllamaToolCall[];
  /** On tool messages: the tool that produced the result. */
  tool_name?: string;
  /** On tool messages: the call answered (pairs parallel calls of the same tool where Ollama reads it). */
  tool_call_id?: string;
}

export interface OllamaRequest {
  model: string;
  messages: OllamaMessage[];
  tools?: Array<{
    type: "function";
    function: { name: string; description: string; parameters: Record<string, unknown> };
  }>;
  stream: true;
  think?: boolean | "low" | "medium" | "high";
  options?: { temperature?: number; num_predict?: number; num_ctx?: number };
  keep_alive?: string | number;
}
