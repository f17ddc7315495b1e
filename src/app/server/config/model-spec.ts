import type { ChatModel } from "../../../model/core.js";
import { ConfigError } from "./service-config.js";

type ModelFromSpec = (spec: string) => ChatModel | Promise<ChatModel>;

/**
 * The model of a config: a ChatModel as is, or a spec string (`openai:gpt-4o-mini`) resolved by
 * `modelFromSpec` from src/model/from-spec.ts, loaded only when a spec is used.
 */
export async function resolveModel(model: string | object, agent: string): Promise<ChatModel> {
  if (typeof model !== "string") return model as ChatModel;
  let fromSpec: ModelFromSpec | undefined;
  try {
    const specifier = "../../../model/from-spec.js";
    fromSpec = ((await import(specifier)) as { modelFromSpec?: ModelFromSpec }).modelFromSpec;
  } catch {
    fromSpec = undefined;
  }
  if (!fromSpec) {
    throw new ConfigError(
      `agents "${agent}".model: model specs ("${model}") need modelFromSpec (src/model/from-spec.ts), which this build lacks; pass a ChatModel in a TypeScript config`,
    );
  }
  try {
    return await fromSpec(model);
  } catch (error) {
    throw new ConfigError(`agents "${agent}".model: ${(error as Error).message}`);
  }
}
