/** The `openai` SDK: `chat.completions.create({ stream: true })`, deltas accumulated by hand. */
import OpenAI from "openai";
import type { ChatCompletionMessageParam, ChatCompletionTool } from "openai/resources/chat/completions";
import { TOOL_NAME, toolResultText } from "../sse-script.js";
import { type BenchClient, PROMPT, TOOL_DESCRIPTION } from "./client.js";
import { type AssembledCall, addCallFragment } from "./tool-call-fragments.js";

const TOOLS: ChatCompletionTool[] = [
  {
    type: "function",
    function: {
      name: TOOL_NAME,
      description: TOOL_DESCRIPTION,
      parameters: { type: "object", properties: { city: { type: "string" } }, required: ["city"] },
    },
  },
];

export async function openaiSdkClient(baseURL: string): Promise<BenchClient> {
  const client = new OpenAI({ baseURL, apiKey: "bench", maxRetries: 0 });

  async function stream(model: string, messages: ChatCompletionMessageParam[], tools?: ChatCompletionTool[]) {
    const chunks = await client.chat.completions.create({
      model,
      messages,
      tools,
      stream: true,
      stream_options: { include_usage: true },
    });
    let text = "";
    const calls: AssembledCall[] = [];
    for await (const chunk of chunks) {
      const delta = chunk.choices[0]?.delta;
      if (!delta) continue;
      if (delta.content) text += delta.content;
      for (const fragment of delta.tool_calls ?? []) {
        addCallFragment(calls, fragment);
      }
    }
    return { text, calls };
  }

  return {
    name: "openai SDK",
    async text(model) {
      return (await stream(model, [{ role: "user", content: PROMPT }])).text;
    },
    async toolRoundTrip() {
      const messages: ChatCompletionMessageParam[] = [{ role: "user", content: PROMPT }];
      const first = await stream("tool", messages, TOOLS);
      messages.push({
        role: "assistant",
        content: null,
        tool_calls: first.calls.map((c) => ({
          id: c.id,
          type: "function" as const,
          function: { name: c.name, arguments: c.arguments },
        })),
      });
      for (const call of first.calls) {
        const { city } = JSON.parse(call.arguments) as { city: string };
        messages.push({ role: "tool", tool_call_id: call.id, content: toolResultText(city) });
      }
      return (await stream("tool", messages, TOOLS)).text;
    },
  };
}
