import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import { serve } from "@hono/node-server";
import { z } from "zod";
import { Agent } from "../../../src/agent/index.js";
import { consoleRoutes } from "../../../src/app/console/index.js";
import { createApp } from "../../../src/app/server/app.js";
import { memoryBackend } from "../../../src/app/server/backend/memory-backend.js";
import { memoryRoutes } from "../../../src/app/server/http/memory-routes.js";
import { ServiceRuntime } from "../../../src/app/server/runtime/service-runtime.js";
import type { Msg } from "../../../src/message/index.js";
import type { ChatChunk, ChatModel } from "../../../src/model/core.js";
import { providerCall, providerResult } from "../../../src/model/provider-kit/provider-runs.js";
import { subAgentTool } from "../../../src/multiagent/index.js";
import { ScriptedModel, type ScriptedTurn } from "../../../src/testing/index.js";
import { functionTool, type Tool } from "../../../src/tool/index.js";

export const MARKDOWN_ANSWER = [
  "## Saved",
  "",
  "- first item",
  "- second item",
  "",
  "| file | change |",
  "| --- | --- |",
  "| notes.md | edited |",
  "",
  "```ts",
  "const answer: number = 42;",
  "```",
  "",
  "[bad link](javascript:alert(1)) and [docs](https://example.com/docs) <img src=x onerror=alert(1)>",
].join("\n");

export const SLOW_ANSWER = `Slow answer. ${"Each of these words arrives in its own small piece. ".repeat(10)}The end.`;

const lastUserText = (messages: Msg[]) => {
  const user = messages.findLast((m) => m.role === "user");
  return (user?.content ?? []).map((b) => (b.type === "text" ? b.text : "")).join(" ");
};

/**
 * A provider's search result is text from any web page: this one carries markup and a script URL,
 * which the console must show as text, never as elements or links.
 */
export const HOSTILE_SEARCH_RESULT =
  '- <img src=x onerror="window.__pwned=1">Oat milk guide — javascript:window.__pwned=2 https://example.com/oat';

/** A reply with a web search the provider ran itself ("look up"), then its answer. */
async function* providerSearch(): AsyncIterable<ChatChunk> {
  const answer = { type: "text" as const, id: "look-up-answer", text: "Oat milk keeps 7 days." };
  yield { type: "text", blockId: answer.id, delta: answer.text };
  const data = {
    type: "server_tool_use",
    id: "srvtoolu_look",
    name: "web_search",
    input: { query: "oat milk" },
  };
  yield {
    type: "final",
    content: [
      providerCall("anthropic", "srvtoolu_look", "web_search", '{"query":"oat milk"}', data),
      providerResult("anthropic", "srvtoolu_look", "web_search", HOSTILE_SEARCH_RESULT, false, {
        type: "web_search_tool_result",
        tool_use_id: "srvtoolu_look",
        content: [],
      }),
      answer,
    ],
    usage: { inputTokens: 10, outputTokens: 5 },
    stopReason: "stop",
  };
}

/**
 * A model that answers by keyword of the last user message: "edit" → edit_file, "write" →
 * write_file (both ask first), "slow" → a long streamed answer; after a tool result, the Markdown
 * answer. Any call plays the right turn for the conversation so far, so tests run in any order.
 */
function keywordModel(): ChatModel {
  const base = new ScriptedModel([]);
  const turn = (messages: Msg[]): ScriptedTurn => {
    const last = messages.at(-1);
    if (last?.role === "assistant" && last.content.some((b) => b.type === "tool_result"))
      return { text: MARKDOWN_ANSWER, delayMs: 2, usage: { inputTokens: 120, outputTokens: 40 } };
    const text = lastUserText(messages);
    if (text.includes("edit"))
      return {
        thinking: "Editing a file asks first.",
        text: "I'll edit the notes.",
        toolCalls: [
          {
            name: "edit_file",
            input: {
              file_path: "notes.md",
              old_string: "buy milk\ncall mum",
              new_string: "buy oat milk\ncall mum",
            },
          },
        ],
      };
    if (text.includes("write"))
      return {
        toolCalls: [{ name: "write_file", input: { file_path: "todo.md", content: "water plants" } }],
      };
    if (text.includes("research"))
      return { toolCalls: [{ name: "researcher", input: { prompt: "find the sources" } }] };
    if (text.includes("slow")) return { text: SLOW_ANSWER, delayMs: 40 };
    return { text: `You said: ${text}` };
  };
  return {
    name: "keyword",
    provider: "scripted",
    contextSize: base.contextSize,
    countTokens: (messages, tools) => base.countTokens(messages, tools),
    stream: (messages, opts) =>
      lastUserText(messages).includes("look up") && !messages.at(-1)?.content.some((b) => b.type === "text")
        ? providerSearch()
        : new ScriptedModel([turn(messages)], { chunkSize: 4 }).stream(messages, opts),
  };
}

/** What the file tools were called with, in order. */
export const fileCalls: Array<{ tool: string; input: unknown }> = [];

const editFile = functionTool({
  name: "edit_file",
  description: "Replaces text in a file",
  input: z.object({ file_path: z.string(), old_string: z.string(), new_string: z.string() }),
  execute: (input) => {
    fileCalls.push({ tool: "edit_file", input });
    return `edited ${input.file_path}`;
  },
}) as Tool;

const writeFile = functionTool({
  name: "write_file",
  description: "Writes a file",
  input: z.object({ file_path: z.string(), content: z.string() }),
  execute: (input) => {
    fileCalls.push({ tool: "write_file", input });
    return `wrote ${input.file_path}`;
  },
}) as Tool;

export const SUB_ANSWER = "Found two sources on oat milk.";

/** A sub-agent the helper calls as a tool: its run streams nested inside the tool call. */
const researcher = () =>
  subAgentTool(
    new Agent({
      name: "researcher",
      systemPrompt: "You research.",
      model: {
        ...keywordModel(),
        stream: (messages, opts) =>
          new ScriptedModel([{ thinking: "Looking it up.", text: SUB_ANSWER }], { chunkSize: 4 }).stream(
            messages,
            opts,
          ),
      },
    }),
    { name: "researcher", description: "Researches a question" },
  ) as Tool;

export interface ConsoleService {
  base: string;
  runtime: ServiceRuntime;
  close(): Promise<void>;
}

/** The service with the console mounted, on a free 127.0.0.1 port. */
export async function startConsoleService(): Promise<ConsoleService> {
  const runtime = new ServiceRuntime({
    backend: memoryBackend(),
    agents: [
      { name: "helper", model: keywordModel(), toolkit: [editFile, writeFile, researcher()] },
      { name: "reviewer", model: keywordModel(), toolkit: [editFile] },
    ],
  });
  // No long-term memory configured: GET /v1/memories answers { enabled: false }.
  const app = createApp(runtime, { mounts: [memoryRoutes({ flush: async () => {} }), consoleRoutes()] });
  const server = serve({ fetch: app.fetch, hostname: "127.0.0.1", port: 0 }) as Server;
  await new Promise<void>((resolve) => server.once("listening", () => resolve()));
  const { port } = server.address() as AddressInfo;
  return {
    base: `http://127.0.0.1:${port}`,
    runtime,
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await runtime.close();
    },
  };
}
