/** The parts of the Anthropic Messages API request this package sends (checked against the SDK types in tests). */

export type AnthropicImageMediaType = "image/jpeg" | "image/png" | "image/gif" | "image/webp";

export type AnthropicSource =
  | { type: "base64"; media_type: AnthropicImageMediaType; data: string }
  | { type: "url"; url: string };

export type AnthropicDocumentSource =
  | { type: "base64"; media_type: "application/pdf"; data: string }
  | { type: "url"; url: string };

/** A prompt-caching breakpoint (see anthropic-cache.ts). */
export interface AnthropicCacheControl {
  type: "ephemeral";
  ttl?: "5m" | "1h";
}

export interface AnthropicTextPart {
  type: "text";
  text: string;
  cache_control?: AnthropicCacheControl;
}
export interface AnthropicImagePart {
  type: "image";
  source: AnthropicSource;
  cache_control?: AnthropicCacheControl;
}
export interface AnthropicDocumentPart {
  type: "document";
  source: AnthropicDocumentSource;
  cache_control?: AnthropicCacheControl;
}
export interface AnthropicThinkingPart {
  type: "thinking";
  thinking: string;
  signature: string;
}
export interface AnthropicRedactedThinkingPart {
  type: "redacted_thinking";
  data: string;
}
export interface AnthropicToolUsePart {
  type: "tool_use";
  id: string;
  name: string;
  input: Record<string, unknown>;
  cache_control?: AnthropicCacheControl;
}
export interface AnthropicToolResultPart {
  type: "tool_result";
  tool_use_id: string;
  content: string | Array<AnthropicTextPart | AnthropicImagePart | AnthropicDocumentPart>;
  is_error?: boolean;
  cache_control?: AnthropicCacheControl;
}

export type AnthropicMediaPart = AnthropicImagePart | AnthropicDocumentPart;

export type AnthropicPart =
  | AnthropicTextPart
  | AnthropicImagePart
  | AnthropicDocumentPart
  | AnthropicThinkingPart
  | AnthropicRedactedThinkingPart
  | AnthropicToolUsePart
  | AnthropicToolResultPart;

export interface AnthropicMessage {
  role: "user" | "assistant";
  content: AnthropicPart[];
}

export interface AnthropicTool {
  name: string;
  description: string;
  input_schema: { type: "object"; [key: string]: unknown };
  cache_control?: AnthropicCacheControl;
}

export type AnthropicToolChoice =
  | { type: "auto" }
  | { type: "any" }
  | { type: "none" }
  | { type: "tool"; name: string };

export interface AnthropicRequest {
  model: string;
  max_tokens: number;
  messages: AnthropicMessage[];
  system?: string | AnthropicTextPart[];
  tools?: AnthropicTool[];
  tool_choice?: AnthropicToolChoice;
  thinking?: { type: "enabled"; budget_tokens: number } | { type: "disabled" };
  temperature?: number;
  stream: true;
}
