import { describe, expect, it } from "vitest";
import { Agent } from "../../src/agent/index.js";
import { type ContentBlock, type Msg, userMsg } from "../../src/message/index.js";
import { AnthropicModel } from "../../src/model/anthropic/anthropic-model.js";
import { GeminiModel } from "../../src/model/gemini/gemini-model.js";
import { OpenAIChatModel } from "../../src/model/openai/chat-model.js";
import { OpenAIResponsesModel } from "../../src/model/openai/responses-model.js";
import type { ChatModel } from "../../src/model/types.js";
import { replyThroughAgent } from "./helpers/agent-reply.js";
import { collect } from "./helpers/collect-stream.js";
import { chunkPayloads, recordedText } from "./helpers/recorded-wire.js";
import { REPLAY_MODES, type ReplayMode, replayFrames, responsesBodies } from "./helpers/replay.js";
import { sse, wireServerForFile } from "./helpers/wire-server.js";

/**
 * Built-in tool runs (the provider runs the tool) replayed from real recorded API streams
 * (test/model/fixtures/recorded/builtin/, see SOURCES.md) through a real Agent, each three ways: the
 * run becomes a tool_call + tool_result pair with `executedBy: "provider"` at its place in the reply,
 * and the next request sends it back to the same provider exactly as it came.
 */

const wire = wireServerForFile();
const SSE = { "content-type": "text/event-stream" };
type Json = Record<string, unknown>;
type SentBody = { messages: Array<{ role: string; content: Json[] }>; input: Json[]; contents: Json[] };
const body = (index: number) => wire.requests[index]?.body as SentBody;

const payloads = (name: string) => chunkPayloads(`builtin/${name}`).map((line) => JSON.parse(line) as Json);
/** Anthropic's SSE framing (`event: <type>`) around recorded payloads, sent as recorded. */
const anthropicBody = (name: string) =>
  chunkPayloads(`builtin/${name}`)
    .map((line) => `event: ${(JSON.parse(line) as Json).type}\ndata: ${line}\n\n`)
    .join("");
/** One recorded GenerateContentResponse (pretty-printed JSON) as one SSE event, its lines unchanged. */
const geminiBody = (name: string) =>
  `${recordedText(`builtin/${name}`)
    .trimEnd()
    .split("\n")
    .map((line) => `data: ${line}`)
    .join("\r\n")}\r\n\r\n`;

const serve = (mode: ReplayMode, recorded: string) =>
  wire.queue(
    { headers: SSE, frames: replayFrames(recorded, mode) },
    { headers: SSE, frames: [sse({ type: "done" }, "noop")] },
  );

const replyOf = replyThroughAgent;

/** Sends a follow-up so the next request body is recorded (its answer is not read). */
async function followUp(agent: Agent): Promise<void> {
  await agent.reply(userMsg("thanks")).catch(() => undefined);
}

const providerBlocks = (msg: Msg) =>
  msg.content.filter(
    (b) => (b.type === "tool_call" || b.type === "tool_result") && b.executedBy === "provider",
  );
const shape = (msg: Msg) =>
  msg.content.map((b: ContentBlock) =>
    b.type === "tool_call" || b.type === "tool_result" ? `${b.type}:${b.name}` : b.type,
  );

const anthropic = () =>
  new AnthropicModel({
    model: "claude-sonnet-4-5",
    baseURL: wire.url,
    apiKey: "k",
    maxRetries: 0,
    cache: false,
  });
const responses = () =>
  new OpenAIResponsesModel({ model: "gpt-5", baseURL: `${wire.url}/v1`, apiKey: "k", maxRetries: 0 });
const gemini = () =>
  new GeminiModel({ model: "gemini-2.5-flash", baseURL: `${wire.url}/v1beta`, apiKey: "k", maxRetries: 0 });
const agentOn = (model: ChatModel) => new Agent({ name: "helper", systemPrompt: "Be brief.", model });

/** What a recording says about Anthropic blocks: each content_block_start's block, by index. */
function anthropicStarts(name: string): Json[] {
  const starts: Json[] = [];
  for (const payload of payloads(name)) {
    if (payload.type === "content_block_start")
      starts[payload.index as number] = payload.content_block as Json;
  }
  return starts;
}

describe.each(REPLAY_MODES)("Anthropic server tools, recorded (%s)", (mode) => {
  it("web search: the run is a provider call and result before the cited answer, and goes back as sent", async () => {
    const name = "anthropic-web-search-tool.1.chunks.txt";
    serve(mode, anthropicBody(name));
    const agent = agentOn(anthropic());
    const { msg, events } = await replyOf(agent, "What happened in tech news today?");
    const [use, result] = anthropicStarts(name) as [Json, Json];

    expect(shape(msg).slice(0, 3)).toEqual(["tool_call:web_search", "tool_result:web_search", "text"]);
    const [call, output] = providerBlocks(msg);
    expect(call).toMatchObject({
      id: use.id,
      input: '{"query": "tech news today September 26 2025"}',
      state: "finished",
      executedBy: "provider",
      provider: "anthropic",
      providerData: { ...use, input: { query: "tech news today September 26 2025" } },
    });
    expect(output).toMatchObject({
      id: use.id,
      state: "success",
      executedBy: "provider",
      providerData: result,
    });
    expect(output?.type === "tool_result" && output.output).toContain(
      "The all-new Apple Ginza opens this Friday, September 26, in Tokyo - Apple — https://www.apple.com/newsroom/2025/09/the-all-new-apple-ginza-opens-this-friday-september-26-in-tokyo/",
    );
    // The agent neither ran nor gated it: one model call, no confirmation asked.
    expect(events.filter((e) => e.type === "MODEL_CALL_START")).toHaveLength(1);
    expect(events.some((e) => e.type === "REQUIRE_USER_CONFIRM")).toBe(false);
    expect(msg.finishedReason).toBe("completed");

    await followUp(agent);
    const assistant = body(1).messages[1]!;
    expect(assistant.role).toBe("assistant");
    expect(assistant.content[0]).toEqual({ ...use, input: { query: "tech news today September 26 2025" } });
    expect(assistant.content[1]).toEqual(result);
    expect(assistant.content[2]).toMatchObject({ type: "text" });
  });

  it("code execution: the text-editor and bash runs keep their places between the texts", async () => {
    const name = "anthropic-code-execution-20250825.1.chunks.txt";
    serve(mode, anthropicBody(name));
    const agent = agentOn(anthropic());
    const { msg } = await replyOf(agent, "Compute the 10th Fibonacci number.");
    expect(shape(msg)).toEqual([
      "text",
      "tool_call:text_editor_code_execution",
      "tool_result:text_editor_code_execution",
      "text",
      "tool_call:bash_code_execution",
      "tool_result:bash_code_execution",
      "text",
    ]);
    const bash = msg.content[5];
    expect(bash?.type === "tool_result" && bash.output).toContain("The 10th Fibonacci number is: 34");

    await followUp(agent);
    const starts = anthropicStarts(name);
    const sent = body(1).messages[1]!.content;
    const runs = sent.filter((part) => part.type !== "text");
    expect(runs.map((part) => part.type)).toEqual([
      "server_tool_use",
      "text_editor_code_execution_tool_result",
      "server_tool_use",
      "bash_code_execution_tool_result",
    ]);
    expect(runs[1]).toEqual(starts[2]);
    expect(runs[3]).toEqual(starts[5]);
    expect(runs[2]).toMatchObject({ id: starts[4]!.id, name: "bash_code_execution" });
    expect(Object.keys((runs[2] as { input: Json }).input)).not.toHaveLength(0);
  });
  it("web fetch: the fetched page is summarised, and the whole result block goes back", async () => {
    const name = "anthropic-web-fetch-tool.1.chunks.txt";
    serve(mode, anthropicBody(name));
    const agent = agentOn(anthropic());
    const { msg } = await replyOf(agent, "Summarise the Maglemosian culture page.");
    const starts = anthropicStarts(name);
    expect(shape(msg)).toEqual(["text", "tool_call:web_fetch", "tool_result:web_fetch", "text"]);
    expect(msg.content[2]).toMatchObject({
      output: expect.stringMatching(/^Fetched https:\/\/en\.wikipedia\.org\/wiki\/Maglemosian_culture/),
      state: "success",
      providerData: starts[2],
    });
    await followUp(agent);
    expect(body(1).messages[1]!.content.filter((part) => part.type !== "text")).toEqual([
      { ...starts[1], input: JSON.parse((msg.content[1] as { input: string }).input) },
      starts[2],
    ]);
  });
});

describe.each(REPLAY_MODES)("OpenAI Responses hosted tools, recorded (%s)", (mode) => {
  /** The output items of the recorded response, in order (response.output_item.done). */
  const doneItems = (name: string) =>
    payloads(name)
      .filter((p) => p.type === "response.output_item.done")
      .map((p) => p.item as Json);

  it("web search: every search call and reasoning item goes back in the recorded order", async () => {
    const name = "openai-web-search-tool.1.chunks.txt";
    serve(mode, responsesBodies(chunkPayloads(`builtin/${name}`))[0]!);
    const agent = agentOn(responses());
    const { msg } = await replyOf(agent, "What happened in tech today?");
    const items = doneItems(name);
    const searches = items.filter((item) => item.type === "web_search_call");
    expect(searches.length).toBeGreaterThan(1);
    const calls = msg.content.filter((b) => b.type === "tool_call");
    expect(calls.map((c) => c.id)).toEqual(searches.map((s) => s.id));
    expect(calls.every((c) => c.executedBy === "provider" && c.name === "web_search")).toBe(true);
    expect(calls[0]).toMatchObject({
      input: JSON.stringify({ type: "search", query: "tech news today December 5 2025" }),
      providerData: searches[0],
    });
    const first = msg.content.find((b) => b.type === "tool_result");
    expect(first?.type === "tool_result" && first.output).toContain(
      "Searched: tech news today December 5 2025",
    );

    await followUp(agent);
    const input = body(1).input;
    const replayed = input.slice(2, 2 + items.length); // after the system and user messages
    expect(replayed.map((item) => [item.type, item.id])).toEqual(items.map((item) => [item.type, item.id]));
    for (const search of searches) expect(input).toContainEqual(search);
  });

  it("code interpreter: the calls go back as recorded, their logs are the results", async () => {
    const name = "openai-code-interpreter-tool.1.chunks.txt";
    serve(mode, responsesBodies(chunkPayloads(`builtin/${name}`))[0]!);
    const agent = agentOn(responses());
    const { msg } = await replyOf(agent, "Simulate dice rolls.");
    const runs = doneItems(name).filter((item) => item.type === "code_interpreter_call");
    const results = msg.content.filter((b) => b.type === "tool_result");
    expect(results.map((r) => r.id)).toEqual(runs.map((r) => r.id));
    expect(results[0]).toMatchObject({
      name: "code_interpreter",
      output: "(2, 12, 69868, 6.9868)",
      state: "success",
    });
    expect(msg.content.find((b) => b.type === "tool_call")?.input).toBe(
      JSON.stringify({ code: runs[0]!.code, container_id: runs[0]!.container_id }),
    );

    await followUp(agent);
    for (const run of runs) expect(body(1).input).toContainEqual(run);
  });

  it("image generation: the image is a data block of the result, and the item goes back with it", async () => {
    const name = "openai-image-generation-tool.1.chunks.txt";
    serve(mode, responsesBodies(chunkPayloads(`builtin/${name}`))[0]!);
    const agent = agentOn(responses());
    const { msg } = await replyOf(agent, "Draw a cat.");
    const item = doneItems(name).find((i) => i.type === "image_generation_call")!;
    const result = msg.content.find((b) => b.type === "tool_result");
    expect(result).toMatchObject({
      id: item.id,
      name: "image_generation",
      executedBy: "provider",
      output: [
        { type: "text" },
        { type: "data", source: { type: "base64", mediaType: "image/webp", data: item.result } },
      ],
    });
    // The image is stored once: not in the call's providerData too.
    const call = msg.content.find((b) => b.type === "tool_call");
    expect(call?.providerData).toMatchObject({ id: item.id });
    expect((call?.providerData ?? {}) as Json).not.toHaveProperty("result");

    await followUp(agent);
    expect(body(1).input).toContainEqual(item);
  });
});

describe.each(REPLAY_MODES)("Gemini code execution, recorded (%s)", (mode) => {
  it("the code, its two results and the signed answer go back as the parts Gemini sent", async () => {
    const name = "google-code-execution-multiple-results.json";
    const recorded = JSON.parse(recordedText(`builtin/${name}`)) as {
      candidates: Array<{ content: { parts: Json[] } }>;
    };
    const parts = recorded.candidates[0]!.content.parts;
    serve(mode, geminiBody(name));
    const agent = agentOn(gemini());
    const { msg } = await replyOf(agent, "Run print('ok') then 1/0.");
    expect(shape(msg)).toEqual([
      "tool_call:code_execution",
      "tool_result:code_execution",
      "thinking",
      "text",
    ]);
    const [call, result] = providerBlocks(msg);
    expect(call).toMatchObject({
      input: JSON.stringify({ language: "PYTHON", code: "print('ok')\nprint(1/0)" }),
      providerData: parts[0],
    });
    expect(result).toMatchObject({ state: "error", providerData: [parts[1], parts[2]] });
    expect(result?.type === "tool_result" && result.output).toMatch(
      /^ok\n\ndivision by zero[\s\S]*\(OUTCOME_FAILED\)$/,
    );

    await followUp(agent);
    expect(body(1).contents[1]).toEqual({ role: "model", parts });
  });
});

describe("a built-in tool run sent to another provider", () => {
  it("becomes a text summary: no Anthropic server blocks reach Responses, Gemini or Chat Completions", async () => {
    serve("whole body", anthropicBody("anthropic-web-search-tool.1.chunks.txt"));
    const agent = agentOn(anthropic());
    await replyOf(agent, "What happened in tech news today?");
    const history = [...agent.state.context, userMsg("and?")];
    const chat = new OpenAIChatModel({
      model: "gpt-4o",
      baseURL: `${wire.url}/v1`,
      apiKey: "k",
      maxRetries: 0,
    });
    for (const model of [responses(), gemini(), chat]) {
      wire.requests.length = 0;
      wire.queue({ status: 400, headers: { "content-type": "application/json" }, frames: ["{}"] });
      await collect(model.stream(history)).catch(() => undefined);
      const sent = JSON.stringify(wire.requests[0]?.body);
      expect(sent).not.toContain("server_tool_use");
      expect(sent).not.toContain("web_search_tool_result");
      expect(sent).not.toContain("srvtoolu_");
      expect(sent).toContain(
        '[built-in tool web_search {\\"query\\": \\"tech news today September 26 2025\\"} (run by anthropic)]',
      );
    }
  });

  it("a Responses run goes to Chat Completions (same provider family) as text, never as a function call", async () => {
    serve(
      "whole body",
      responsesBodies(chunkPayloads("builtin/openai-code-interpreter-tool.1.chunks.txt"))[0]!,
    );
    const agent = agentOn(responses());
    await replyOf(agent, "Simulate dice rolls.");
    const chat = new OpenAIChatModel({
      model: "gpt-4o",
      baseURL: `${wire.url}/v1`,
      apiKey: "k",
      maxRetries: 0,
    });
    wire.requests.length = 0;
    wire.queue({ status: 400, headers: { "content-type": "application/json" }, frames: ["{}"] });
    await collect(chat.stream([...agent.state.context, userMsg("and?")])).catch(() => undefined);
    const sent = wire.requests[0]?.body as {
      messages: Array<{ role: string; content?: unknown; tool_calls?: unknown }>;
    };
    expect(sent.messages.some((m) => m.tool_calls !== undefined || m.role === "tool")).toBe(false);
    expect(JSON.stringify(sent)).toContain("(2, 12, 69868, 6.9868)");
  });
});
