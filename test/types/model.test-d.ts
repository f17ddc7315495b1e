// modelFromSpec takes a "provider:model" string or an object spec and returns a ChatModel.
import type { ChatModel } from "agentscope";
import { type ModelSpec, modelFromSpec } from "agentscope/model";
import { describe, expectTypeOf, it } from "vitest";

describe("modelFromSpec", () => {
  it("returns a ChatModel for either form of spec", () => {
    expectTypeOf(modelFromSpec("openai:gpt-4o-mini")).toEqualTypeOf<ChatModel>();
    expectTypeOf(
      modelFromSpec({ provider: "anthropic", model: "claude", apiKeyEnv: "KEY" }),
    ).toEqualTypeOf<ChatModel>();
    expectTypeOf(modelFromSpec).parameter(0).toEqualTypeOf<ModelSpec>();
    expectTypeOf(modelFromSpec).parameter(1).toEqualTypeOf<NodeJS.ProcessEnv | undefined>();
  });

  it("needs a provider and a model in an object spec", () => {
    // @ts-expect-error: `model` is missing
    modelFromSpec({ provider: "openai" });
    // @ts-expect-error: `contextSize` is a number
    modelFromSpec({ provider: "openai", model: "gpt-4o", contextSize: "128k" });
  });
});
