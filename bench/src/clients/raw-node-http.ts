/** The Node floor: `node:http` with a keep-alive agent, a minimal SSE splitter and `JSON.parse`, no library. */
import { Agent, request } from "node:http";
import { TOOL_NAME, toolResultText } from "../sse-script.js";
import { type BenchClient, PROMPT, TOOL_DESCRIPTION } from "./client.js";
import { type AssembledCall, addCallFragment, type CallFragment } from "./tool-call-fragments.js";

const agent = new Agent({ keepAlive: true });

interface StreamResult {
  text: string;
  calls: AssembledCall[];
}

function stream(url: string, body: unknown): Promise<StreamResult> {
  const payload = JSON.stringify(body);
  return new Promise((resolve, reject) => {
    const req = request(url, {
      method: "POST",
      agent,
      headers: {
        "content-type": "application/json",
        authorization: "Bearer bench",
        "content-length": Buffer.byteLength(payload),
      },
    });
    req.on("error", reject);
    req.on("response", (res) => {
      if (res.statusCode !== 200) return reject(new Error(`HTTP ${res.statusCode}`));
      const result: StreamResult = { text: "", calls: [] };
      res.setEncoding("utf8");
      let buffer = "";
      res.on("data", (chunk: string) => {
        buffer += chunk;
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
          for (const fragment of delta.tool_calls ?? []) addCallFragment(result.calls, fragment);
        }
        buffer = buffer.slice(start);
      });
      res.on("end", () => resolve(result));
      res.on("error", reject);
    });
    req.end(payload);
  });
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

export async function rawNodeHttpClient(baseURL: string): Promise<BenchClient> {
  const url = `${baseURL}/chat/completions`;
  return {
    name: "raw node:http",
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
