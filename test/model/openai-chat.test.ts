import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { describe, expect, it } from "vitest";
import { assistantMsg, type ContentBlock, dataBlock, textBlock, userMsg } from "../../src/message/index.js";
import { modelInfo, registerModelInfo } from "../../src/model/model-info.js";
import { formatOpenAIChat } from "../../src/model/openai/chat-format.js";
import { OpenAIChatModel } from "../../src/model/openai/chat-model.js";
import { OpenAIChatStreamParser } from "../../src/model/openai/chat-stream.js";
import type { ProviderError } from "../../src/model/transport/errors.js";
import type { FetchFunction } from "../../src/model/transport/types.js";
import type { ChatChunk, ChatFinal } from "../../src/model/types.js";
import { chatCompletionFrames } from "./helpers/openai-wire.js";

const call = (id: string, input = "{}"): ContentBlock => ({
  type: "tool_call",
  id,
  name: "shot",
  input,
  state: "finished",
});
const result = (id: string, output: ContentBlock[] | string): ContentBlock =>
  ({ type: "tool_result", id, name: "shot", output, state: "success" }) as ContentBlock;

describe("formatOpenAIChat", () => {
  it("splits a reply into assistant tool_calls, tool messages in order, then a user message with the tools' images", () => {
    const reply = assistantMsg([
      call("c1"),
      call("c2"),
      result("c1", [textBlock("first"), dataBlock("AAAA", "image/png")]),
      result("c2", "second"),
      textBlock("done"),
    ]);
    const { messages } = formatOpenAIChat([userMsg("go"), reply], { model: "m" });
    expect(messages.map((m) => m.role)).toEqual(["user", "assistant", "tool", "tool", "user", "assistant"]);
    expect(messages[1]).toMatchObject({ content: null, tool_calls: [{ id: "c1" }, { id: "c2" }] });
    expect(messages[2]).toEqual({
      role: "tool",
      tool_call_id: "c1",
      content: "first\n[image/png 1 of the tool's output follows in the next user message]",
    });
    expect(messages[4]).toEqual({
      role: "user",
      content: [
        { type: "text", text: "Output of tool shot (call c1):" },
        { type: "image_url", image_url: { url: "data:image/png;base64,AAAA" } },
      ],
    });
    expect(messages[5]).toEqual({ role: "assistant", content: "done" });
  });

  it("maps tool choice auto / none / required / a named tool", () => {
    const choice = (toolChoice: Parameters<typeof formatOpenAIChat>[1]["toolChoice"]) =>
      formatOpenAIChat([userMsg("x")], { model: "m", toolChoice }).tool_choice;
    expect([choice("auto"), choice("none"), choice("required")]).toEqual(["auto", "none", "required"]);
    expect(choice({ name: "shot" })).toEqual({ type: "function", function: { name: "shot" } });
  });

  it("maps audio and PDF to parts and URL images to image_url", () => {
    const { messages } = formatOpenAIChat(
      [
        userMsg([
          dataBlock("UklGR", "audio/wav"),
          { ...dataBlock("JVBER", "application/pdf", "report.pdf") },
          { type: "data", id: "u", source: { type: "url", url: "https://x.test/cat.jpg" } },
        ]),
      ],
      { model: "m" },
    );
    expect(messages[0]?.content).toEqual([
      { type: "input_audio", input_audio: { data: "UklGR", format: "wav" } },
      { type: "file", file: { file_data: "data:application/pdf;base64,JVBER", filename: "report.pdf" } },
      { type: "image_url", image_url: { url: "https://x.test/cat.jpg" } },
    ]);
  });

  it("sends reasoning_content back only for the provider's own thinking when the preset round-trips it", () => {
    const reply = (provider: string) =>
      assistantMsg([{ type: "thinking", id: "t", thinking: "hmm", provider }, textBlock("answer")]);
    const own = formatOpenAIChat([reply("deepseek")], {
      model: "m",
      provider: "deepseek",
      reasoningRoundTrip: true,
    });
    expect(own.messages[0]).toEqual({ role: "assistant", content: "answer", reasoning_content: "hmm" });
    const openai = formatOpenAIChat([reply("openai")], { model: "m" });
    expect(openai.messages[0]).toEqual({ role: "assistant", content: "answer" });
  });

  it("uses the preset's max tokens field and merges extraBody last", () => {
    const body = formatOpenAIChat([userMsg("x")], {
      model: "m",
      maxTokens: 5,
      maxTokensField: "max_tokens",
      reasoningEffort: "high",
      extraBody: { stream_options: { include_usage: false }, top_p: 0.5 },
    });
    expect(body).toMatchObject({
      max_tokens: 5,
      reasoning_effort: "high",
      top_p: 0.5,
      stream_options: { include_usage: false },
    });
    expect(body.max_completion_tokens).toBeUndefined();
  });
});

function parse(chunks: unknown[]): { out: ChatChunk[]; final: ChatFinal } {
  const parser = new OpenAIChatStreamParser("openai");
  const out: ChatChunk[] = [];
  for (const chunk of chunks)
    parser.onEvent(typeof chunk === "string" ? chunk : JSON.stringify(chunk), undefined, out);
  return { out, final: parser.finish() };
}
const delta = (d: Record<string, unknown>, finish: string | null = null) => ({
  choices: [{ index: 0, delta: d, finish_reason: finish }],
});

describe("OpenAIChatStreamParser", () => {
  it("assembles parallel tool calls from fragments by index", () => {
    const { out, final } = parse([
      delta({
        tool_calls: [{ index: 0, id: "a", type: "function", function: { name: "f", arguments: "" } }],
      }),
      delta({
        tool_calls: [{ index: 1, id: "b", type: "function", function: { name: "g", arguments: '{"y"' } }],
      }),
      delta({ tool_calls: [{ index: 0, function: { arguments: '{"x":' } }] }),
      delta({
        tool_calls: [
          { index: 0, function: { arguments: "1}" } },
          { index: 1, function: { arguments: ":2}" } },
        ],
      }),
      delta({}, "tool_calls"),
      "[DONE]",
    ]);
    expect(out).toEqual([
      { type: "tool_call", blockId: "a", name: "f", delta: "" },
      { type: "tool_call", blockId: "b", name: "g", delta: '{"y"' },
      { type: "tool_call", blockId: "a", delta: '{"x":' },
      { type: "tool_call", blockId: "a", delta: "1}" },
      { type: "tool_call", blockId: "b", delta: ":2}" },
    ]);
    expect(final.content).toEqual([
      { type: "tool_call", id: "a", name: "f", input: '{"x":1}', state: "pending" },
      { type: "tool_call", id: "b", name: "g", input: '{"y":2}', state: "pending" },
    ]);
    expect(final.stopReason).toBe("tool_calls");
  });

  it("reads reasoning_content and `reasoning`, usage with cached tokens, and maps length", () => {
    const { out, final } = parse([
      delta({ reasoning_content: "a" }),
      delta({ reasoning: "b" }),
      delta({ content: "hi" }, "length"),
      {
        choices: [],
        usage: { prompt_tokens: 10, completion_tokens: 3, prompt_tokens_details: { cached_tokens: 8 } },
      },
    ]);
    expect(out.map((c) => c.type)).toEqual(["thinking", "thinking", "text"]);
    expect(final.content).toMatchObject([
      { type: "thinking", thinking: "ab", provider: "openai" },
      { type: "text", text: "hi" },
    ]);
    expect(final.usage).toEqual({ inputTokens: 10, outputTokens: 3, cacheReadTokens: 8 });
    expect(final.stopReason).toBe("length");
  });

  it("rejects a chunk without choices with a clear, non-retryable error", () => {
    const error = (() => {
      try {
        parse([{ id: "x", object: "something.else" }]);
      } catch (e) {
        return e as ProviderError;
      }
    })();
    expect(error?.message).toMatch(/openai sent a stream chunk without a `choices` array/);
    expect(error?.retryable).toBe(false);
  });

  it("throws an error the provider put in the stream", () => {
    expect(() => parse([{ error: { message: "model overloaded", type: "server_error" } }])).toThrow(
      /openai reported an error in the stream: model overloaded/,
    );
  });
});

/** A fetch that answers from memory and records what was sent (no network). */
function memoryFetch(frames: string[]) {
  const calls: Array<{ url: string; init: RequestInit }> = [];
  const fetchFn: FetchFunction = async (url, init) => {
    calls.push({ url, init });
    return new Response(frames.join(""), { headers: { "content-type": "text/event-stream" } });
  };
  return { fetchFn, calls };
}

describe("OpenAIChatModel", () => {
  const wire = chatCompletionFrames(["ok"], { input: 1, output: 1 });
  const frames = [...wire.open, ...wire.deltas, ...wire.close];

  it("sends bearer auth, organization, project and extra headers to /chat/completions", async () => {
    const { fetchFn, calls } = memoryFetch(frames);
    const model = new OpenAIChatModel({
      model: "gpt-4o",
      apiKey: "sk-1",
      organization: "org-1",
      project: "proj-1",
      headers: { "x-trace": "t" },
      fetch: fetchFn,
    });
    for await (const _ of model.stream([userMsg("hi")])) {
    }
    expect(calls[0]?.url).toBe("https://api.openai.com/v1/chat/completions");
    expect(calls[0]?.init.headers).toMatchObject({
      authorization: "Bearer sk-1",
      "openai-organization": "org-1",
      "openai-project": "proj-1",
      "x-trace": "t",
      "content-type": "application/json",
    });
    expect(JSON.parse(String(calls[0]?.init.body))).toMatchObject({ model: "gpt-4o", stream: true });
  });

  it("uses Azure's api-key header and api-version query", async () => {
    const { fetchFn, calls } = memoryFetch(frames);
    const model = new OpenAIChatModel({
      model: "my-deployment",
      baseURL: "https://res.openai.azure.com/openai/v1/",
      apiKey: "az",
      authHeader: "api-key",
      query: { "api-version": "preview" },
      fetch: fetchFn,
    });
    for await (const _ of model.stream([userMsg("hi")])) {
    }
    expect(calls[0]?.url).toBe("https://res.openai.azure.com/openai/v1/chat/completions?api-version=preview");
    expect(calls[0]?.init.headers).toMatchObject({ "api-key": "az" });
    expect(calls[0]?.init.headers).not.toHaveProperty("authorization");
  });

  it.each([
    ["deepseek", "https://api.deepseek.com/v1/chat/completions", "DEEPSEEK_API_KEY"],
    ["dashscope", "https://dashscope.aliyuncs.com/compatible-mode/v1/chat/completions", "DASHSCOPE_API_KEY"],
    ["moonshot", "https://api.moonshot.ai/v1/chat/completions", "MOONSHOT_API_KEY"],
    ["lmstudio", "http://localhost:1234/v1/chat/completions", undefined],
  ] as const)("preset %s: base URL, key variable and provider id", async (preset, url, env) => {
    if (env) process.env[env] = "from-env";
    try {
      const { fetchFn, calls } = memoryFetch(frames);
      const model = new OpenAIChatModel({ model: "m", preset, fetch: fetchFn, maxRetries: 0 });
      for await (const _ of model.stream([userMsg("hi")], { maxTokens: 9 })) {
      }
      expect(model.provider).toBe(preset);
      expect(calls[0]?.url).toBe(url);
      const headers = calls[0]?.init.headers as Record<string, string>;
      expect(headers.authorization).toBe(env ? "Bearer from-env" : undefined);
      expect(JSON.parse(String(calls[0]?.init.body)).max_tokens).toBe(9);
    } finally {
      if (env) delete process.env[env];
    }
  });

  it("takes its context size from the options, the model-info table, or a default", () => {
    expect(new OpenAIChatModel({ model: "gpt-4o-2024-08-06", apiKey: "k" }).contextSize).toBe(128_000);
    expect(new OpenAIChatModel({ model: "gpt-4.1-mini", apiKey: "k" }).contextSize).toBe(1_047_576);
    expect(new OpenAIChatModel({ model: "gpt-4o", apiKey: "k", contextSize: 5 }).contextSize).toBe(5);
    registerModelInfo("my-local-model", { contextSize: 4096, maxOutputTokens: 512 });
    expect(modelInfo("vllm/my-local-model-q4")).toEqual({ contextSize: 4096, maxOutputTokens: 512 });
    expect(new OpenAIChatModel({ model: "my-local-model", apiKey: "k" }).contextSize).toBe(4096);
  });

  it("counts tokens with the estimator", () => {
    const model = new OpenAIChatModel({ model: "gpt-4o", apiKey: "k" });
    expect(model.countTokens([userMsg("x".repeat(400))])).toBeGreaterThanOrEqual(100);
  });
});

describe("OpenAIChatModel with local files", () => {
  const wire = chatCompletionFrames(["ok"], { input: 1, output: 1 });
  const frames = [...wire.open, ...wire.deltas, ...wire.close];

  it("reads a file: attachment into base64 before formatting", async () => {
    const dir = mkdtempSync(join(tmpdir(), "as-openai-"));
    writeFileSync(join(dir, "dot.png"), Buffer.from("PNGDATA"));
    const { fetchFn, calls } = memoryFetch(frames);
    const model = new OpenAIChatModel({ model: "gpt-4o", apiKey: "k", fetch: fetchFn });
    const file = pathToFileURL(join(dir, "dot.png")).href;
    for await (const _ of model.stream([
      userMsg([{ type: "data", id: "d", source: { type: "url", url: file } }]),
    ])) {
    }
    const body = JSON.parse(String(calls[0]?.init.body));
    expect(body.messages[0].content).toEqual([
      {
        type: "image_url",
        image_url: { url: `data:image/png;base64,${Buffer.from("PNGDATA").toString("base64")}` },
      },
    ]);
  });

  it("fails on iteration with a clear error when the file is missing", async () => {
    const { fetchFn, calls } = memoryFetch(frames);
    const model = new OpenAIChatModel({ model: "gpt-4o", apiKey: "k", fetch: fetchFn });
    const stream = model.stream([
      userMsg([{ type: "data", id: "d", source: { type: "url", url: "file:///nope/x.png" } }]),
    ]);
    await expect(
      (async () => {
        for await (const _ of stream) {
        }
      })(),
    ).rejects.toThrow(/cannot read the attachment \/nope\/x.png/);
    expect(calls).toHaveLength(0);
  });
});
