/** The floor: `fetch` and a minimal SSE parser, no library. */
import { TOOL_NAME, toolResultText } from "../sse-script.js";
import { type BenchClient, PROMPT, TOOL_DESCRIPTION } from "./client.js";
import { type AssembledCall, addCallFragment } from "./tool-call-fragments.js";

interface StreamResult {
  text: string;
  calls: AssembledCall[];
}

interface Delta {
  content?: string | null;
  tool_calls?: Array<{ index: number; id?: string; function?: { name?: string; arguments?: string } }>;
}

async function stream(url: string, body: unknown): Promise<StreamResult> {
  const response = await fetch(url, {
    method: "POST",
    headers: { "content-type": "application/json", authorization: "Bearer bench" },
    body: JSON.stringify(body),
  });
  if (!response.ok || !response.body) throw new Error(`HTTP ${response.status}`);
  const result: StreamResult = { text: "", calls: [] };
  const reader = response.body.getReader();
  const decoder = new TextDecoder();
  let buffer = "";
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    buffer += decoder.decode(value, { stream: true });
    let start = 0;
    let end = buffer.indexOf("\n\n");
    while (end !== -1) {
      const line = buffer.slice(start, end);
      start = end + 2;
      end = buffer.indexOf("\n\n", start);
      if (!line.startsWith("data: ")) continue;
      const data = line.slice(6);
      if (data === "[DONE]") continue;
      const delta: Delta | undefined = JSON.parse(data).choices[0]?.delta;
      if (!delta) continue;
      if (delta.content) result.text += delta.content;
      if (delta.tool_calls) {
        for (const fragment of delta.tool_calls) {
          addCallFragment(result.calls, fragment);
        }
      }
    }
    buffer = buffer.slice(start);
  }
  return result;
}

const TOOLS = [
  {
    type: "function",
    function: {
      name: TOOL_NAME,
      description: TOOL_DESCRIPTION,
      parameters: { type: "object", properties: { city: { type: "string" } }, required: ["city"] },
    },
  },
];

export async function rawFetchClient(baseURL: string): Promise<BenchClient> {
  const url = `${baseURL}/chat/completions`;
  return {
    name: "raw fetch",
    async text(model) {
      const messages = [{ role: "user", content: PROMPT }];
      return (await stream(url, { model, messages, stream: true })).text;
    },
    async toolRoundTrip() {
      const messages: unknown[] = [{ role: "user", content: PROMPT }];
      const first = await stream(url, { model: "tool", messages, tools: TOOLS, stream: true });
      messages.push({
        role: "assistant",
        content: null,
        tool_calls: first.calls.map((c) => ({
          id: c.id,
          type: "function",
          function: { name: c.name, arguments: c.arguments },
        })),
      });
      for (const call of first.calls) {
        const { city } = JSON.parse(call.arguments) as { city: string };
        messages.push({ role: "tool", tool_call_id: call.id, content: toolResultText(city) });
      }
      return (await stream(url, { model: "tool", messages, tools: TOOLS, stream: true })).text;
    },
  };
}
