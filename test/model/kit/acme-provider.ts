import { blocksOf, type Msg, newId, type TextBlock, textOf } from "../../../src/message/index.js";
import {
  type ChatChunk,
  type ChatFinal,
  ContentAssembler,
  joinUrl,
  type ModelProviderDefinition,
  malformedChunk,
  type ProviderCall,
  type ProviderEndpoint,
  ProviderModel,
  type ProviderModelOptions,
  providerEndpoint,
  streamCut,
  type ToolSchema,
  toolOutputText,
  v1BaseURL,
  type WireParser,
} from "../../../src/model/provider-kit/index.js";

// Acme's wire (acme-wire.ts in a provider folder): a request, and the frames of its SSE stream.
interface AcmeRequest {
  model: string;
  messages: Array<{
    role: "system" | "user" | "assistant" | "tool";
    content: string;
    calls?: Array<{ id: string; name: string; args: string }>;
    call_id?: string;
  }>;
  tools?: Array<{ name: string; description: string; schema: object }>;
  max_output?: number;
  stream: true;
}
type AcmeFrame =
  | { kind: "text"; text: string }
  | { kind: "call"; id?: string; name: string; args: string }
  | { kind: "end"; reason: "done" | "limit"; tokens_in: number; tokens_out: number };

// The formatter (acme-format.ts): normalised history → a body. Pure, so it is tested without a server.
export function formatAcme(messages: Msg[], options: { model: string; tools?: ToolSchema[] }): AcmeRequest {
  const body: AcmeRequest = { model: options.model, messages: [], stream: true };
  for (const msg of messages) {
    const calls = blocksOf(msg, "tool_call").map((call) => ({
      id: call.id,
      name: call.name,
      args: call.input,
    }));
    body.messages.push({ role: msg.role, content: textOf(msg), ...(calls.length > 0 ? { calls } : {}) });
    for (const result of blocksOf(msg, "tool_result"))
      body.messages.push({ role: "tool", content: toolOutputText(result), call_id: result.id });
  }
  if (options.tools?.length)
    body.tools = options.tools.map((tool) => ({
      name: tool.name,
      description: tool.description,
      schema: tool.parameters,
    }));
  return body;
}

// The parser (acme-stream.ts): frames → deltas with stable block ids, then one final chunk.
export class AcmeStreamParser implements WireParser {
  private readonly assembler = new ContentAssembler();
  private text: TextBlock | undefined;
  private final: ChatFinal | undefined;

  onEvent(data: string, _event: string | undefined, out: ChatChunk[]): void {
    const frame = JSON.parse(data) as AcmeFrame;
    if (frame.kind === "text") {
      this.text ??= this.assembler.text();
      this.text.text += frame.text;
      out.push({ type: "text", blockId: this.text.id, delta: frame.text });
    } else if (frame.kind === "call") {
      const call = this.assembler.toolCall(frame.id ?? newId("call"), frame.name);
      call.input = frame.args;
      out.push({ type: "tool_call", blockId: call.id, name: frame.name, delta: frame.args });
      this.text = undefined;
    } else if (frame.kind === "end") {
      const usage = { inputTokens: frame.tokens_in, outputTokens: frame.tokens_out };
      const reason =
        frame.reason === "limit" ? "length" : this.assembler.hasToolCalls ? "tool_calls" : "stop";
      this.final = this.assembler.final(usage, reason);
    } else throw malformedChunk("acme", "a text, call or end frame", data);
  }

  finish(): ChatFinal {
    if (this.final === undefined) throw streamCut("acme");
    return this.final;
  }
}

// The model (acme-model.ts): the template's five answers, and the definition modelFromSpec reads.
export interface AcmeModelOptions extends ProviderModelOptions {
  /** Defaults to ACME_API_KEY. */
  apiKey?: string;
  /** Defaults to ACME_BASE_URL, else https://api.acme.example/v1. */
  baseURL?: string;
}

const ACME_ENDPOINT = {
  label: "Acme",
  keyEnv: "ACME_API_KEY",
  urlEnv: "ACME_BASE_URL",
  url: "https://api.acme.example/v1",
};

export class AcmeModel extends ProviderModel<AcmeModelOptions, AcmeRequest> {
  readonly provider = "acme";
  protected readonly credentialHint = "ACME_API_KEY or the apiKey option";
  protected readonly samplingWire = { names: { topP: "top_p", stopSequences: "stop" } };

  protected endpoint(): ProviderEndpoint {
    const { apiKey, baseURL } = providerEndpoint(ACME_ENDPOINT, this.options);
    return { url: joinUrl(baseURL, "/chat"), apiKey };
  }

  protected headers({ apiKey }: ProviderEndpoint): Record<string, string> {
    return { "content-type": "application/json", authorization: `Bearer ${apiKey}` };
  }

  protected format(messages: Msg[], { opts }: ProviderCall): AcmeRequest {
    const body = formatAcme(messages, { model: this.name, tools: opts.tools });
    if (opts.maxTokens !== undefined) body.max_output = opts.maxTokens;
    return body;
  }

  protected parser(): AcmeStreamParser {
    return new AcmeStreamParser();
  }
}

export const acmeProvider: ModelProviderDefinition = {
  name: "acme",
  baseURLVariable: "ACME_BASE_URL",
  normalizeBaseURL: (baseURL, field) => v1BaseURL(baseURL, field, "acme"),
  create: (settings) => new AcmeModel(settings),
  defaultModel: { model: "acme-large", when: "ACME_API_KEY" },
};
