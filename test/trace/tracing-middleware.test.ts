import { SpanStatusCode } from "@opentelemetry/api";
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  type ReadableSpan,
  SimpleSpanProcessor,
} from "@opentelemetry/sdk-trace-base";
import { afterEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { Agent } from "../../src/agent/index.js";
import { userConfirmResult } from "../../src/event/index.js";
import { userMsg } from "../../src/message/index.js";
import { ScriptedModel } from "../../src/testing/index.js";
import { functionTool } from "../../src/tool/index.js";
import { tracingMiddleware } from "../../src/trace/index.js";
import { collect, weather } from "../agent/helpers.js";

const exporter = new InMemorySpanExporter();
const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
const tracer = provider.getTracer("agentscope-test");

afterEach(() => exporter.reset());

const spans = () => exporter.getFinishedSpans();
const named = (prefix: string) => spans().filter((s) => s.name.startsWith(prefix));
const parentId = (span: ReadableSpan) => span.parentSpanContext?.spanId;
const only = (prefix: string) => {
  const found = named(prefix);
  expect(found).toHaveLength(1);
  return found[0]!;
};

function weatherAgent(options: { captureContent?: boolean } = {}) {
  const model = new ScriptedModel(
    [
      {
        toolCalls: [{ id: "call_1", name: "get_weather", input: { city: "Paris" } }],
        usage: { inputTokens: 30, outputTokens: 7 },
      },
      { text: "It is sunny.", usage: { inputTokens: 50, outputTokens: 4, cacheReadTokens: 20 } },
    ],
    { name: "gpt-test" },
  );
  return new Agent({
    name: "assistant",
    systemPrompt: "You are helpful.",
    model,
    toolkit: [weather],
    middlewares: [tracingMiddleware({ tracer, ...options })],
  });
}

describe("tracingMiddleware", () => {
  it("nests chat and execute_tool spans under invoke_agent, with the GenAI attributes", async () => {
    const agent = weatherAgent();
    const events = await collect(agent.replyStream(userMsg("weather in Paris?")));
    const root = only("invoke_agent");
    expect(root.name).toBe("invoke_agent assistant");
    expect(parentId(root)).toBeUndefined();
    expect(root.attributes).toMatchObject({
      "gen_ai.operation.name": "invoke_agent",
      "gen_ai.agent.name": "assistant",
      "gen_ai.conversation.id": agent.state.sessionId,
      "gen_ai.provider.name": "scripted",
      "gen_ai.request.model": "gpt-test",
      "gen_ai.usage.input_tokens": 80,
      "gen_ai.usage.output_tokens": 11,
      "agentscope.reply.id": events[0]!.replyId,
      "agentscope.reply.finished_reason": "completed",
    });

    const chats = named("chat ");
    expect(chats.map((s) => s.name)).toEqual(["chat gpt-test", "chat gpt-test"]);
    for (const chat of chats) {
      expect(parentId(chat)).toBe(root.spanContext().spanId);
      expect(chat.spanContext().traceId).toBe(root.spanContext().traceId);
    }
    expect(chats[0]!.attributes).toMatchObject({
      "gen_ai.operation.name": "chat",
      "gen_ai.provider.name": "scripted",
      "gen_ai.request.model": "gpt-test",
      "gen_ai.response.model": "gpt-test",
      "gen_ai.usage.input_tokens": 30,
      "gen_ai.usage.output_tokens": 7,
      "gen_ai.response.finish_reasons": ["tool_calls"],
    });
    expect(chats[1]!.attributes).toMatchObject({
      "gen_ai.response.finish_reasons": ["stop"],
      "gen_ai.usage.cache_read.input_tokens": 20,
    });

    const tool = only("execute_tool");
    expect(tool.name).toBe("execute_tool get_weather");
    expect(parentId(tool)).toBe(root.spanContext().spanId);
    expect(tool.attributes).toMatchObject({
      "gen_ai.operation.name": "execute_tool",
      "gen_ai.tool.name": "get_weather",
      "gen_ai.tool.call.id": "call_1",
      "gen_ai.tool.type": "function",
    });
    // the tool ran between the two model calls
    const start = (s: ReadableSpan) => s.startTime[0] * 1e9 + s.startTime[1];
    expect(start(tool)).toBeGreaterThanOrEqual(start(chats[0]!));
    expect(start(chats[1]!)).toBeGreaterThanOrEqual(start(tool));
    for (const span of spans()) expect(span.status.code).toBe(SpanStatusCode.UNSET);
  });

  it("records no message content unless asked", async () => {
    await collect(weatherAgent().replyStream(userMsg("weather in Paris?")));
    const keys = spans().flatMap((s) => Object.keys(s.attributes));
    for (const key of [
      "gen_ai.input.messages",
      "gen_ai.output.messages",
      "gen_ai.system_instructions",
      "gen_ai.tool.call.arguments",
      "gen_ai.tool.call.result",
    ]) {
      expect(keys).not.toContain(key);
    }
    expect(JSON.stringify(spans().map((s) => s.attributes))).not.toContain("Paris");
  });

  it("records prompts, answers, tool arguments and results with captureContent", async () => {
    await collect(weatherAgent({ captureContent: true }).replyStream(userMsg("weather in Paris?")));
    const [first, second] = named("chat ");
    expect(JSON.parse(first!.attributes["gen_ai.system_instructions"] as string)).toEqual([
      { type: "text", content: "You are helpful." },
    ]);
    expect(JSON.parse(first!.attributes["gen_ai.input.messages"] as string)).toEqual([
      { role: "user", parts: [{ type: "text", content: "weather in Paris?" }] },
    ]);
    expect(JSON.parse(first!.attributes["gen_ai.output.messages"] as string)).toEqual([
      {
        role: "assistant",
        parts: [{ type: "tool_call", id: "call_1", name: "get_weather", arguments: { city: "Paris" } }],
        finish_reason: "tool_calls",
      },
    ]);
    const input = JSON.parse(second!.attributes["gen_ai.input.messages"] as string);
    expect(input.at(-1).parts).toContainEqual({
      type: "tool_call_response",
      id: "call_1",
      response: "sunny in Paris",
    });
    expect(JSON.parse(second!.attributes["gen_ai.output.messages"] as string)[0].parts).toEqual([
      { type: "text", content: "It is sunny." },
    ]);
    const tool = only("execute_tool");
    expect(tool.attributes["gen_ai.tool.call.arguments"]).toBe('{"city":"Paris"}');
    expect(tool.attributes["gen_ai.tool.call.result"]).toBe("sunny in Paris");
  });

  it("gives parallel tool calls their own spans, each lasting as long as its tool", async () => {
    // The fast tool finishes 5 ms after the slow one started; the slow one waits for a gate the fast
    // one opens 20 ms after it finished: the order and the overlap are fixed by the tools, not by how
    // busy the machine is.
    let openGate!: () => void;
    const gate = new Promise<void>((resolve) => {
      openGate = resolve;
    });
    let slowStarted!: () => void;
    const slowRunning = new Promise<void>((resolve) => {
      slowStarted = resolve;
    });
    const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
    const tool = (name: string, execute: () => Promise<string>) =>
      functionTool({ name, description: name, input: z.object({}), readOnly: true, execute });
    const model = new ScriptedModel([
      {
        toolCalls: [
          { id: "call_a", name: "fast" },
          { id: "call_b", name: "slow" },
        ],
      },
      { text: "both done" },
    ]);
    const agent = new Agent({
      name: "assistant",
      model,
      toolkit: [
        tool("fast", async () => {
          await slowRunning;
          await sleep(5);
          setTimeout(openGate, 20);
          return "fast done";
        }),
        tool("slow", async () => {
          slowStarted();
          await gate;
          return "slow done";
        }),
      ],
      middlewares: [tracingMiddleware({ tracer })],
    });
    await collect(agent.replyStream(userMsg("go")));
    const root = only("invoke_agent");
    const tools = named("execute_tool");
    expect(tools.map((s) => [s.name, s.attributes["gen_ai.tool.call.id"]]).sort()).toEqual([
      ["execute_tool fast", "call_a"],
      ["execute_tool slow", "call_b"],
    ]);
    for (const tool of tools) expect(parentId(tool)).toBe(root.spanContext().spanId);
    const t = (hr: [number, number]) => hr[0] * 1e9 + hr[1];
    const fast = tools.find((s) => s.name.endsWith("fast"))!;
    const slowSpan = tools.find((s) => s.name.endsWith("slow"))!;
    // they overlapped (the slow one started before the fast one ended) and each span ends with its
    // own tool: the slow one at least the gate's 20 ms (less a timer's 1 ms rounding) after the fast one
    expect(t(slowSpan.startTime)).toBeLessThan(t(fast.endTime));
    expect(t(slowSpan.endTime) - t(fast.endTime)).toBeGreaterThanOrEqual(19e6);
  });

  it("keeps two concurrent sessions' spans under their own invoke_agent", async () => {
    const model = new ScriptedModel(
      Array.from({ length: 4 }, (_, i) =>
        i < 2
          ? { toolCalls: [{ name: "get_weather", input: { city: "Rome" } }], delayMs: 1 }
          : { text: "ok", delayMs: 1 },
      ),
    );
    const agent = new Agent({
      name: "assistant",
      model,
      toolkit: [weather],
      middlewares: [tracingMiddleware({ tracer })],
    });
    const one = agent.createState("session-one");
    const two = agent.createState("session-two");
    await Promise.all([
      collect(agent.replyStream(userMsg("a"), { state: one })),
      collect(agent.replyStream(userMsg("b"), { state: two })),
    ]);
    const roots = named("invoke_agent");
    expect(roots.map((s) => s.attributes["gen_ai.conversation.id"]).sort()).toEqual([
      "session-one",
      "session-two",
    ]);
    for (const root of roots) {
      const children = spans().filter((s) => parentId(s) === root.spanContext().spanId);
      expect(children.length).toBeGreaterThanOrEqual(2);
      for (const child of children) {
        expect(child.attributes["gen_ai.conversation.id"]).toBe(root.attributes["gen_ai.conversation.id"]);
      }
    }
    expect(named("chat ").length + named("execute_tool").length).toBe(6);
  });

  it("records a failing tool on its span and lets the reply go on", async () => {
    const broken = functionTool({
      name: "broken",
      description: "always fails",
      input: z.object({}),
      readOnly: true,
      execute: () => {
        throw new Error("disk on fire");
      },
    });
    const model = new ScriptedModel([{ toolCalls: [{ name: "broken" }] }, { text: "sorry" }]);
    const agent = new Agent({
      name: "a",
      model,
      toolkit: [broken],
      middlewares: [tracingMiddleware({ tracer })],
    });
    await collect(agent.replyStream(userMsg("go")));
    const tool = only("execute_tool");
    expect(tool.status).toEqual({ code: SpanStatusCode.ERROR, message: "disk on fire" });
    expect(tool.attributes["error.type"]).toBe("internal");
    expect(tool.events.map((e) => [e.name, e.attributes?.["exception.message"]])).toEqual([
      ["exception", "disk on fire"],
    ]);
    expect(only("invoke_agent").status.code).toBe(SpanStatusCode.UNSET);
  });

  it("records a failing model call on its chat span and the failed reply on invoke_agent", async () => {
    const model = new ScriptedModel([
      { error: { type: "rate_limit", message: "slow down", status: 429, source: "scripted" } },
    ]);
    const agent = new Agent({ name: "a", model, middlewares: [tracingMiddleware({ tracer })] });
    await collect(agent.replyStream(userMsg("go")));
    const chat = only("chat ");
    expect(chat.status).toEqual({ code: SpanStatusCode.ERROR, message: "slow down" });
    expect(chat.attributes["error.type"]).toBe("rate_limit");
    expect(chat.events[0]!.name).toBe("exception");
    const root = only("invoke_agent");
    expect(root.status.code).toBe(SpanStatusCode.ERROR);
    expect(root.attributes).toMatchObject({
      "agentscope.reply.finished_reason": "error",
      "error.type": "rate_limit",
    });
    expect(parentId(chat)).toBe(root.spanContext().spanId);
  });

  it("ends a streamed tool's span when its stream ends, with the streamed text as the result", async () => {
    const streaming = functionTool({
      name: "count",
      description: "counts",
      input: z.object({}),
      readOnly: true,
      async *execute() {
        for (const n of ["1\n", "2\n", "3\n"]) {
          await new Promise((resolve) => setTimeout(resolve, 10));
          yield n;
        }
      },
    });
    const model = new ScriptedModel([{ toolCalls: [{ name: "count" }] }, { text: "counted" }]);
    const agent = new Agent({
      name: "a",
      model,
      toolkit: [streaming],
      middlewares: [tracingMiddleware({ tracer, captureContent: true })],
    });
    await collect(agent.replyStream(userMsg("go")));
    const tool = only("execute_tool");
    expect(tool.attributes["gen_ai.tool.call.result"]).toBe("1\n2\n3\n");
    expect(tool.duration[0] * 1e3 + tool.duration[1] / 1e6).toBeGreaterThanOrEqual(25);
  });

  it("marks a reply that pauses for a confirmation and traces its resumption as a new invoke_agent", async () => {
    const note = functionTool({
      name: "write_note",
      description: "asks first",
      input: z.object({}),
      execute: () => "ok",
    });
    const model = new ScriptedModel([{ toolCalls: [{ name: "write_note" }] }, { text: "Done." }]);
    const agent = new Agent({
      name: "a",
      model,
      toolkit: [note],
      middlewares: [tracingMiddleware({ tracer })],
    });
    const first = await collect(agent.replyStream(userMsg("note")));
    expect(only("invoke_agent").attributes["agentscope.reply.paused_for"]).toBe("user_confirm");
    const ask = first.find((e) => e.type === "REQUIRE_USER_CONFIRM");
    if (ask?.type !== "REQUIRE_USER_CONFIRM") throw new Error("expected a confirmation request");
    await collect(
      agent.replyStream(
        userConfirmResult({
          replyId: ask.replyId,
          confirmResults: [{ confirmed: true, toolCall: ask.toolCalls[0]! }],
        }),
      ),
    );
    const roots = named("invoke_agent");
    expect(roots).toHaveLength(2);
    expect(roots.map((s) => s.attributes["agentscope.reply.id"])).toEqual([ask.replyId, ask.replyId]);
    expect(parentId(only("execute_tool"))).toBe(roots[1]!.spanContext().spanId);
    // the decision records ride on the reply spans as span events: the ask, then the approval
    const decisions = roots.flatMap((root) => root.events.filter((e) => e.name === "agentscope.decision"));
    expect(decisions.map((e) => e.attributes?.["agentscope.decision.outcome"])).toEqual(["ask", "approve"]);
    expect(decisions[1]!.attributes).toMatchObject({
      "agentscope.decision.tool.name": "write_note",
      "agentscope.decision.actor": "user",
      "agentscope.decision.channel": "code",
    });
  });

  it("ends the span of a tool still running when the reply is interrupted, marked as such", async () => {
    const stuck = functionTool({
      name: "stuck",
      description: "ignores the signal for a while",
      input: z.object({}),
      readOnly: true,
      execute: () => new Promise<string>((resolve) => setTimeout(() => resolve("late"), 200)),
    });
    const model = new ScriptedModel([{ toolCalls: [{ name: "stuck" }] }]);
    const agent = new Agent({
      name: "a",
      model,
      toolkit: [stuck],
      middlewares: [tracingMiddleware({ tracer })],
    });
    const abort = new AbortController();
    setTimeout(() => abort.abort(), 20);
    const events = await collect(agent.replyStream(userMsg("go"), { signal: abort.signal }));
    const end = events.at(-1)!;
    expect(end.type === "REPLY_END" && end.finishedReason).toBe("interrupted");
    const tool = only("execute_tool");
    expect(tool.attributes["agentscope.interrupted"]).toBe(true);
    expect(only("invoke_agent").endTime).toEqual(expect.any(Array));
  });

  it("uses the global tracer provider when no tracer is given (a no-op without an SDK)", async () => {
    const model = new ScriptedModel([{ text: "hi" }]);
    const agent = new Agent({ name: "a", model, middlewares: [tracingMiddleware()] });
    const events = await collect(agent.replyStream(userMsg("go")));
    expect(events.at(-1)!.type).toBe("REPLY_END");
    expect(spans()).toHaveLength(0);
  });
});
