import type { Msg } from "../message/index.js";
import { estimateTokens } from "./estimate-tokens.js";
import { DEFAULT_CONTEXT_SIZE, modelInfo } from "./model-info.js";
import { MODEL_PROVIDERS, parseModelSpec } from "./model-spec.js";
import { knownModelProviders, registeredModelProvider } from "./provider-registry.js";
import type {
  BatchedChatStream,
  ChatChunk,
  ChatModel,
  ChatOptions,
  NativeStructuredOutput,
  ToolSchema,
} from "./types.js";
import { isBatchedStream } from "./types.js";

/**
 * The ChatModel a spec string names (`openai:gpt-4o-mini`), checked now and built on first use.
 * The spec's form and provider are checked here (an error listing the known providers), so a typo
 * fails where it is written; the provider code is imported (through `modelFromSpec`) when the model
 * first streams or counts with the provider, so the core entry does not carry every provider.
 * Until then `contextSize` comes from the model-info table and `countTokens` is the local estimate
 * every provider uses; afterwards everything is the built model's.
 */
export class SpecChatModel implements ChatModel {
  readonly spec: string;
  readonly #provider: string;
  readonly #name: string;
  #model: ChatModel | undefined;
  #loading: Promise<ChatModel> | undefined;

  constructor(spec: string) {
    const parsed = parseModelSpec(spec);
    if (!MODEL_PROVIDERS.includes(parsed.provider) && !registeredModelProvider(parsed.provider)) {
      throw new Error(
        `model "${spec}": unknown provider "${parsed.provider}" (known: ${knownModelProviders().join(", ")})`,
      );
    }
    this.spec = spec;
    this.#provider = parsed.provider;
    this.#name = parsed.model;
  }

  get name(): string {
    return this.#model?.name ?? this.#name;
  }

  get provider(): string {
    return this.#model?.provider ?? this.#provider;
  }

  get contextSize(): number {
    return this.#model?.contextSize ?? modelInfo(this.#name)?.contextSize ?? DEFAULT_CONTEXT_SIZE;
  }

  get nativeStructuredOutput(): NativeStructuredOutput | undefined {
    return this.#model?.nativeStructuredOutput;
  }

  /** The built model (imports the providers and runs `modelFromSpec` once). */
  load(): Promise<ChatModel> {
    if (this.#model) return Promise.resolve(this.#model);
    this.#loading ??= import("./from-spec.js")
      .then(({ modelFromSpec }) => {
        this.#model = modelFromSpec(this.spec);
        return this.#model;
      })
      .catch((error: unknown) => {
        this.#loading = undefined;
        throw error;
      });
    return this.#loading;
  }

  stream(messages: Msg[], opts?: ChatOptions): AsyncIterable<ChatChunk> {
    if (this.#model) return this.#model.stream(messages, opts);
    const open = async () => (await this.load()).stream(messages, opts);
    const stream: BatchedChatStream = {
      async *[Symbol.asyncIterator]() {
        yield* await open();
      },
      batches: async function* () {
        const inner = await open();
        if (isBatchedStream(inner)) yield* inner.batches();
        else for await (const chunk of inner) yield [chunk];
      },
    };
    return stream;
  }

  countTokens(messages: Msg[], tools?: ToolSchema[]): number {
    return this.#model ? this.#model.countTokens(messages, tools) : estimateTokens(messages, tools);
  }

  async countInputTokens(messages: Msg[], tools?: ToolSchema[], opts?: { signal?: AbortSignal }) {
    const model = await this.load();
    return model.countInputTokens
      ? model.countInputTokens(messages, tools, opts)
      : model.countTokens(messages, tools);
  }
}
