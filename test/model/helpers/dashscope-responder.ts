import { createServer } from "node:http";
import type { AddressInfo } from "node:net";

/**
 * A loopback DashScope native server for the shared behaviours aimock does not speak: it answers the
 * same conversations as the aimock fixtures of shared-behaviour.test.ts, in DashScope's documented
 * SSE frames (`id:`, `event:result`, `:HTTP_STATUS/200`, incremental `output.choices[0].message`),
 * one frame per write.
 */
export interface DashScopeResponder {
  url: string;
  close(): Promise<void>;
}

type Message = { role?: string; content?: unknown };
type Reply = {
  content?: string[];
  reasoning?: string;
  toolCalls?: Array<{ id: string; name: string; args: string }>;
};

function lastUserText(messages: Message[]): string {
  for (let i = messages.length - 1; i >= 0; i--) {
    const message = messages[i]!;
    if (message.role !== "user") continue;
    if (typeof message.content === "string") return message.content;
    if (Array.isArray(message.content))
      return message.content.map((item: { text?: string }) => item.text ?? "").join(" ");
  }
  return "";
}

/** The fixtures of shared-behaviour.test.ts, matched the way aimock matches them. */
function replyTo(messages: Message[]): Reply {
  const user = lastUserText(messages);
  const hasToolResult = messages.some((message) => message.role === "tool");
  if (user.includes("say hello")) return { content: ["Hello ", "from the ", "mock"] };
  if (user.includes("weather") && !hasToolResult)
    return { toolCalls: [{ id: "call_w1", name: "get_weather", args: '{"city":"Paris"}' }] };
  if (user.includes("weather")) return { content: ["Sunny in Paris"] };
  if (user.includes("two cities"))
    return {
      toolCalls: [
        { id: "call_p1", name: "get_weather", args: '{"city":"Paris"}' },
        { id: "call_r1", name: "get_weather", args: '{"city":"Rome"}' },
      ],
    };
  if (user.includes("deep question")) return { reasoning: "Let me think step by step", content: ["42"] };
  if (user.includes("describe")) return { content: ["A red ", "dot"] };
  return { content: ["ok"] };
}

function frames(reply: Reply): string[] {
  const out: string[] = [];
  const frame = (message: Record<string, unknown>, finish: string) =>
    out.push(
      `id:${out.length + 1}\nevent:result\n:HTTP_STATUS/200\ndata:${JSON.stringify({
        output: {
          choices: [{ message: { role: "assistant", content: "", ...message }, finish_reason: finish }],
        },
        usage: { input_tokens: 12, output_tokens: out.length + 1, total_tokens: 13 + out.length },
        request_id: "5f0c3f0e-7a9b-9c1e-a3b1-7d1b1e0c2f4a",
      })}\n\n`,
    );
  if (reply.reasoning) frame({ reasoning_content: reply.reasoning }, "null");
  for (const text of reply.content ?? []) frame({ content: text }, "null");
  reply.toolCalls?.forEach((call, index) => {
    const half = Math.floor(call.args.length / 2);
    frame(
      {
        tool_calls: [
          {
            index,
            id: call.id,
            type: "function",
            function: { name: call.name, arguments: call.args.slice(0, half) },
          },
        ],
      },
      "null",
    );
    frame({ tool_calls: [{ index, function: { arguments: call.args.slice(half) } }] }, "null");
  });
  frame({}, reply.toolCalls ? "tool_calls" : "stop");
  return out;
}

export async function startDashScopeResponder(): Promise<DashScopeResponder> {
  const server = createServer(async (req, res) => {
    let raw = "";
    for await (const chunk of req) raw += chunk;
    const body = JSON.parse(raw) as { input?: { messages?: Message[] } };
    res.writeHead(200, { "content-type": "text/event-stream" });
    for (const frame of frames(replyTo(body.input?.messages ?? []))) res.write(frame);
    res.end();
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
