/**
 * What the two floors (raw fetch, raw node:http) share: the minimal SSE splitter with `JSON.parse`,
 * the tool list, and the client built on a `stream(url, body)` function. Only the HTTP layer differs.
 */
import { TOOL_NAME, toolResultText } from "../sse-script.js";
import { type BenchClient, PROMPT, TOOL_DESCRIPTION } from "./client.js";
import { type AssembledCall, addCallFragment, type CallFragment } from "./tool-call-fragments.js";

export interface StreamResult {
  text: string;
  calls: AssembledCall[];
}

export type RawStream = (url: string, body: unknown) => Promise<StreamResult>;

/** Splits decoded text into `data:` events and accumulates the text and tool-call fragments. */
export function sseAccumulator(): { feed(text: string): void; result: StreamResult } {
  const result: StreamResult = { text: "", calls: [] };
  let buffer = "";
  return {
    result,
    feed(text) {
      buffer += text;
      let start = 0;
      let end = buffer.indexOf("\n\n");
      while (end !== -1) {
        const line = buffer.slice(start, end);
        start = end + 2;
        end = buffer.indexOf("\n\n", start);
        if (!line.startsWith("data: ")) continue;
        const data = line.slice(6);
        if (data === "[DONE]") continue;
        const delta: { content?: string | null; tool_calls?: CallFragment[] } | undefined =
          JSON.parse(data).choices[0]?.delta;
        if (!delta) continue;
        if (delta.content) result.text += delta.content;
        if (delta.tool_calls)
          for (const fragment of delta.tool_calls) addCallFragment(result.calls, fragment);
      }
      buffer = buffer.slice(start);
    },
  };
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

/** A bench client doing the scenarios' work by hand over `stream`. */
export function rawClient(name: string, baseURL: string, stream: RawStream): BenchClient {
  const url = `${baseURL}/chat/completions`;
  return {
    name,
    async text(model) {
      return (await stream(url, { model, messages: [{ role: "user", content: PROMPT }], stream: true })).text;
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
