/** The parts of the Anthropic Messages API request this package sends (checked against the SDK types in tests). */

export type AnthropicImageMediaType = "image/jpeg" | "image/png" | "image/gif" | "image/webp";

export type AnthropicSource =
  | { type: "base64"; media_type: AnthropicImageMediaType; data: string }
  | { type: "url"; url: string };

export type AnthropicDocumentSource =
  | { type: "base64"; media_type: "application/pdf"; data: string }
  | { type: "url"; url: string };

export interface AnthropicTextPart {
  type: "text";
  text: string;
}
export interface AnthropicImagePart {
  type: "image";
  source: AnthropicSource;
}
export interface AnthropicDocumentPart {
  type: "document";
  source: AnthropicDocumentSource;
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
}
export interface AnthropicToolResultPart {
  type: "tool_result";
  tool_use_id: string;
  content: string | Array<AnthropicTextPart | AnthropicImagePart | AnthropicDocumentPart>;
  is_error?: boolean;
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
  system?: string;
  tools?: AnthropicTool[];
  tool_choice?: AnthropicToolChoice;
  thinking?: { type: "enabled"; budget_tokens: number } | { type: "disabled" };
  temperature?: number;
  stream: true;
}
