import type { ChatModel } from "../../../model/core.js";
import { ConfigError } from "./service-config.js";

/**
 * The model of a config: a ChatModel as is, or a spec (`openai:gpt-4o-mini[@baseUrl]`, or that as an
 * object with `baseURL` / `apiKeyEnv`) resolved by
 * `modelFromSpec` (loaded only when a spec is used, so the providers stay out of other paths).
 */
export async function resolveModel(model: string | object, agent: string): Promise<ChatModel> {
  if (typeof model !== "string" && !("provider" in model && "model" in model && !("stream" in model)))
    return model as ChatModel;
  const { modelFromSpec } = await import("../../../model/from-spec.js");
  try {
    return modelFromSpec(model as Parameters<typeof modelFromSpec>[0]);
  } catch (error) {
    throw new ConfigError(`agents "${agent}".model: ${(error as Error).message}`);
  }
}
