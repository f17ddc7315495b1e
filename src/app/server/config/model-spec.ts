import type { ChatModel } from "../../../model/core.js";
import { ConfigError } from "./service-config.js";

/**
 * The model of a config: a ChatModel as is, or a spec string (`openai:gpt-4o-mini`) resolved by
 * `modelFromSpec` (loaded only when a spec is used, so the providers stay out of other paths).
 */
export async function resolveModel(model: string | object, agent: string): Promise<ChatModel> {
  if (typeof model !== "string") return model as ChatModel;
  const { modelFromSpec } = await import("../../../model/from-spec.js");
  try {
    return modelFromSpec(model);
  } catch (error) {
    throw new ConfigError(`agents "${agent}".model: ${(error as Error).message}`);
  }
}
