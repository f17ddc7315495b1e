/** The Responses API request body we send (a subset; checked against the `openai` SDK types in test/). */
export type OpenAIResponsesContentPart =
  | { type: "input_text"; text: string }
  | { type: "input_image"; image_url: string; detail: "auto" }
  | { type: "input_file"; file_data: string; filename: string }
  | { type: "input_file"; file_url: string };

export type OpenAIResponsesInputItem =
  | { role: "system" | "user"; content: string | OpenAIResponsesContentPart[] }
  | { role: "assistant"; content: string }
  | {
      type: "message";
      role: "assistant";
      id: string;
      status: "in_progress" | "completed" | "incomplete";
      phase?: "commentary" | "final_answer";
      content: Array<
        { type: "output_text"; text: string; annotations: never[] } | { type: "refusal"; refusal: string }
      >;
    }
  | { type: "function_call"; call_id: string; name: string; arguments: string }
  | { type: "function_call_output"; call_id: string; output: string | OpenAIResponsesContentPart[] }
  | {
      type: "reasoning";
      id: string;
      summary: Array<{ type: "summary_text"; text: string }>;
      encrypted_content?: string;
    };

export type OpenAIResponsesToolChoice = "auto" | "none" | "required" | { type: "function"; name: string };

export interface OpenAIResponsesRequest {
  model: string;
  input: OpenAIResponsesInputItem[];
  stream: true;
  tools?: Array<{
    type: "function";
    name: string;
    description: string;
    parameters: Record<string, unknown>;
    strict: boolean;
  }>;
  tool_choice?: OpenAIResponsesToolChoice;
  max_output_tokens?: number;
  temperature?: number;
  reasoning?: { effort?: "minimal" | "low" | "medium" | "high"; summary?: "auto" | "concise" | "detailed" };
  include?: Array<"reasoning.encrypted_content">;
  store?: boolean;
  [extra: string]: unknown;
}
