import { LLMock } from "@copilotkit/aimock";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import {
  AgentScopeError,
  assistantMsg,
  type ContentBlock,
  dataBlock,
  type Msg,
  textBlock,
  userMsg,
} from "../../src/message/index.js";
import { MISSING_TOOL_RESULT } from "../../src/model/normalize.js";
import type { TransportOptions } from "../../src/model/transport/types.js";
import type { ChatChunk, ChatFinal, ChatModel, ChatOptions } from "../../src/model/types.js";
import { type DashScopeResponder, startDashScopeResponder } from "./helpers/dashscope-responder.js";
import { casesWith } from "./helpers/provider-cases.js";
import { recordingTransport, TRANSPORTS } from "./helpers/transports.js";
import { startWireServer, type WireServer } from "./helpers/wire-server.js";

/**
 * One entry per provider (helpers/provider-cases.ts); every behaviour below runs against each.
 * `origin` is a local server (aimock, or our own wire server serving recorded frames) that speaks the
 * provider's wire format.
 */
const CASES = casesWith("behaviour").map(({ name, textWire, behaviour }) => ({
  name,
  textWire,
  ...behaviour,
}));

const PNG =
  "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==";
const WEATHER_TOOL = {
  name: "get_weather",
  description: "Weather for a city",
  parameters: { type: "object", properties: { city: { type: "string" } }, required: ["city"] },
};

let mock: LLMock;
let wire: WireServer;
let dashscope: DashScopeResponder;

beforeAll(async () => {
  mock = new LLMock({ port: 0, host: "127.0.0.1", logLevel: "silent" });
  mock.on(
    { userMessage: "say hello" },
    {
      content: "Hello from the mock",
      usage: { prompt_tokens: 9, completion_tokens: 4, input_tokens: 9, output_tokens: 4 },
    },
  );
  mock.on(
    { userMessage: "weather", hasToolResult: false },
    { toolCalls: [{ id: "call_w1", name: "get_weather", arguments: { city: "Paris" } }] },
  );
  mock.on({ userMessage: "weather", hasToolResult: true }, { content: "Sunny in Paris" });
  mock.on(
    { userMessage: "two cities" },
    {
      toolCalls: [
        { id: "call_p1", name: "get_weather", arguments: { city: "Paris" } },
        { id: "call_r1", name: "get_weather", arguments: { city: "Rome" } },
      ],
    },
  );
  mock.on({ userMessage: "deep question" }, { content: "42", reasoning: "Let me think step by step" });
  mock.on({ userMessage: "describe" }, { content: "A red dot" });
  mock.on({ predicate: () => true }, { content: "ok" });
  await mock.start();
  wire = await startWireServer();
  dashscope = await startDashScopeResponder();
});

afterAll(async () => {
  await mock.stop();
  await wire.close();
  await dashscope.close();
});

beforeEach(() => {
  sent.length = 0;
  wire.requests.length = 0;
});

async function run(model: ChatModel, messages: Msg[], opts?: ChatOptions) {
  const deltas: Exclude<ChatChunk, ChatFinal>[] = [];
  let final: ChatFinal | undefined;
  for await (const chunk of model.stream(messages, opts)) {
    if (chunk.type === "final") final = chunk;
    else deltas.push(chunk);
  }
  if (final === undefined) throw new Error("no final chunk");
  return { deltas, final };
}

async function runError(model: ChatModel, messages: Msg[], opts?: ChatOptions) {
  const deltas: ChatChunk[] = [];
  try {
    for await (const chunk of model.stream(messages, opts)) deltas.push(chunk);
  } catch (error) {
    return { deltas, error: error as AgentScopeError };
  }
  throw new Error("expected the stream to fail");
}

/** The raw bodies sent (aimock's journal holds its own normalised form, so the transport records them). */
const sent: string[] = [];
const lastBody = () => sent.at(-1) ?? "";
const textOfFinal = (final: ChatFinal) =>
  final.content.flatMap((b) => (b.type === "text" ? [b.text] : [])).join("");

describe.each(TRANSPORTS.flatMap((transport) => CASES.map((provider) => ({ ...provider, transport }))))(
  "$name over $transport.name",
  (provider) => {
    const aimockModel = () =>
      provider.create(provider.aimock === false ? dashscope.url : mock.url, {
        maxRetries: 0,
        transport: recordingTransport(provider.transport.http, sent),
      });
    const wireModel = (options: TransportOptions = {}) =>
      provider.create(wire.url, { maxRetries: 2, transport: provider.transport.choice, ...options });
    const serve = (texts: string[], usage = { input: 11, output: 7 }) => provider.textWire(texts, usage);
    const stream = { "content-type": provider.contentType ?? "text/event-stream" };

    it("streams text as deltas with one stable block id, then a final chunk", async () => {
      const { deltas, final } = await run(aimockModel(), [userMsg("say hello")]);
      const text = deltas.filter((d) => d.type === "text");
      expect(text.map((d) => d.delta).join("")).toBe("Hello from the mock");
      expect(new Set(text.map((d) => d.blockId)).size).toBe(1);
      expect(final.content.filter((b) => b.type === "text")).toEqual([
        expect.objectContaining({ type: "text", id: text[0]?.blockId, text: "Hello from the mock" }),
      ]);
      expect(final.stopReason).toBe("stop");
      expect(lastBody()).toContain("say hello");
    });

    it("does one tool round trip", async () => {
      const model = aimockModel();
      const first = await run(model, [userMsg("weather?")], { tools: [WEATHER_TOOL] });
      const call = first.final.content.find((b) => b.type === "tool_call");
      expect(call).toMatchObject({ type: "tool_call", name: "get_weather" });
      expect(JSON.parse(call?.type === "tool_call" ? call.input : "")).toEqual({ city: "Paris" });
      expect(first.final.stopReason).toBe("tool_calls");
      expect(lastBody()).toContain("get_weather");
      const reply = assistantMsg([
        ...first.final.content,
        {
          type: "tool_result",
          id: call?.id ?? "",
          name: "get_weather",
          output: "sunny, 21C",
          state: "success",
        },
      ]);
      const second = await run(model, [userMsg("weather?"), reply], { tools: [WEATHER_TOOL] });
      expect(textOfFinal(second.final)).toBe("Sunny in Paris");
      expect(lastBody()).toContain("sunny, 21C");
      expect(lastBody()).toContain(call?.id);
    });

    it("streams two parallel tool calls", async () => {
      const { deltas, final } = await run(aimockModel(), [userMsg("two cities")], { tools: [WEATHER_TOOL] });
      const calls = final.content.filter((b) => b.type === "tool_call");
      expect(calls.map((c) => (c.type === "tool_call" ? JSON.parse(c.input).city : ""))).toEqual([
        "Paris",
        "Rome",
      ]);
      expect(new Set(calls.map((c) => c.id)).size).toBe(2);
      const named = deltas.filter((d) => d.type === "tool_call" && d.name === "get_weather");
      expect(named.map((d) => d.blockId)).toEqual(calls.map((c) => c.id));
    });

    it("round-trips thinking", async () => {
      const model = aimockModel();
      const first = await run(model, [userMsg("deep question")]);
      const thinking = first.final.content.find((b) => b.type === "thinking");
      expect(thinking).toMatchObject({
        type: "thinking",
        thinking: "Let me think step by step",
        provider: model.provider,
      });
      expect(first.deltas.some((d) => d.type === "thinking" && d.blockId === thinking?.id)).toBe(true);
      await run(model, [userMsg("deep question"), assistantMsg(first.final.content), userMsg("and then?")]);
      expect(lastBody().includes("Let me think step by step")).toBe(provider.thinkingRoundTrip);
    });

    it("sends an image in the user message", async () => {
      const { final } = await run(aimockModel(), [
        userMsg([textBlock("describe this"), dataBlock(PNG, "image/png")]),
      ]);
      expect(textOfFinal(final)).toBe("A red dot");
      expect(lastBody()).toContain(PNG);
    });

    it("sends an image returned by a tool", async () => {
      const output: ContentBlock[] = [textBlock("the chart"), dataBlock(PNG, "image/png")];
      const reply = assistantMsg([
        { type: "tool_call", id: "call_c1", name: "chart", input: "{}", state: "finished" },
        { type: "tool_result", id: "call_c1", name: "chart", output: output as never, state: "success" },
      ]);
      await run(aimockModel(), [userMsg("show the chart"), reply]);
      expect(lastBody()).toContain(PNG);
      expect(lastBody()).toContain("call_c1");
    });

    it("gives a tool call left without a result an error result", async () => {
      const reply = assistantMsg([
        { type: "tool_call", id: "call_lost", name: "get_weather", input: "{}", state: "pending" },
      ]);
      await run(aimockModel(), [userMsg("hi"), reply, userMsg("go on")], { tools: [WEATHER_TOOL] });
      const body = lastBody();
      expect(body.split("call_lost").length - 1).toBeGreaterThanOrEqual(2);
      expect(body).toContain(MISSING_TOOL_RESULT);
    });

    it("stops with an aborted error when aborted mid-stream", async () => {
      const frames = serve(["Hel", "lo"]);
      wire.queue({ headers: stream, frames: [...frames.open, frames.deltas[0] ?? ""], hang: true });
      const controller = new AbortController();
      const seen: ChatChunk[] = [];
      const error = await (async () => {
        for await (const chunk of wireModel().stream([userMsg("hi")], { signal: controller.signal })) {
          seen.push(chunk);
          controller.abort();
        }
      })().catch((e: unknown) => e as AgentScopeError);
      expect(seen).toHaveLength(1);
      expect(error?.info.type).toBe("aborted");
      expect(wire.requests).toHaveLength(1);
    });

    it("retries a 429 and then succeeds", async () => {
      const frames = serve(["Hel", "lo"]);
      wire.queue(
        {
          status: 429,
          headers: { "content-type": "application/json", "retry-after": "0" },
          frames: [provider.errorBody(429)],
        },
        { headers: stream, frames: [...frames.open, ...frames.deltas, ...frames.close] },
      );
      const { final } = await run(wireModel(), [userMsg("hi")]);
      expect(textOfFinal(final)).toBe("Hello");
      expect(wire.requests).toHaveLength(2);
    });

    it("fails at once on 401 with a clear error", async () => {
      wire.queue({
        status: 401,
        headers: { "content-type": "application/json" },
        frames: [provider.errorBody(401)],
      });
      const { error } = await runError(wireModel(), [userMsg("hi")]);
      expect(wire.requests).toHaveLength(1);
      expect(error).toBeInstanceOf(AgentScopeError);
      expect(error.info).toMatchObject({ type: "authentication", status: 401 });
      expect(error.message).toContain(provider.credentialHint);
    });

    it("surfaces a stream cut mid-way without retrying", async () => {
      const frames = serve(["Hel", "lo"]);
      wire.queue({ headers: stream, frames: [...frames.open, frames.deltas[0] ?? ""], cut: true });
      const { deltas, error } = await runError(wireModel(), [userMsg("hi")]);
      expect(deltas).toHaveLength(1);
      expect(error.info.type).toBe("connection");
      expect(wire.requests).toHaveLength(1);
    });

    it("reports usage", async () => {
      const frames = serve(["Hi"], { input: 11, output: 7 });
      wire.queue({ headers: stream, frames: [...frames.open, ...frames.deltas, ...frames.close] });
      const { final } = await run(wireModel(), [userMsg("hi")]);
      expect(final.usage).toMatchObject({ inputTokens: 11, outputTokens: 7 });
    });
  },
);
