/** The Vercel AI SDK: `streamText` with `@ai-sdk/openai-compatible`; tools with a zod schema and `stopWhen`. */
import { createOpenAICompatible } from "@ai-sdk/openai-compatible";
import { stepCountIs, streamText, tool } from "ai";
import { z } from "zod";
import { TOOL_NAME, toolResultText } from "../sse-script.js";
import { type BenchClient, PROMPT, TOOL_DESCRIPTION } from "./client.js";

(globalThis as { AI_SDK_LOG_WARNINGS?: boolean }).AI_SDK_LOG_WARNINGS = false;

export async function aiSdkClient(baseURL: string): Promise<BenchClient> {
  const provider = createOpenAICompatible({ name: "mock", baseURL, apiKey: "bench", includeUsage: true });
  const tools = {
    [TOOL_NAME]: tool({
      description: TOOL_DESCRIPTION,
      inputSchema: z.object({ city: z.string() }),
      execute: async ({ city }) => toolResultText(city),
    }),
  };

  async function collect(result: { textStream: AsyncIterable<string> }): Promise<string> {
    let text = "";
    for await (const part of result.textStream) text += part;
    return text;
  }

  return {
    name: "AI SDK",
    async text(model) {
      return collect(streamText({ model: provider(model), prompt: PROMPT, maxRetries: 0 }));
    },
    async toolRoundTrip() {
      return collect(
        streamText({
          model: provider("tool"),
          prompt: PROMPT,
          tools,
          stopWhen: stepCountIs(5),
          maxRetries: 0,
        }),
      );
    },
  };
}
