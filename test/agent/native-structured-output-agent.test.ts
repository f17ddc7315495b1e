import { describe, expect, expectTypeOf, it } from "vitest";
import { z } from "zod";
import { Agent, ReplyStateError } from "../../src/agent/index.js";
import { userConfirmResult } from "../../src/event/index.js";
import { blocksOf, userMsg } from "../../src/message/index.js";
import { AnthropicModel } from "../../src/model/anthropic/anthropic-model.js";
import { GeminiModel } from "../../src/model/gemini/gemini-model.js";
import { OllamaModel } from "../../src/model/ollama/ollama-model.js";
import { OpenAIChatModel } from "../../src/model/openai/chat-model.js";
import { OpenAIResponsesModel } from "../../src/model/openai/responses-model.js";
import { parseAgentState } from "../../src/state/index.js";
import { ScriptedModel } from "../../src/testing/index.js";
import { functionTool } from "../../src/tool/index.js";
import { chatCompletionFrames, responsesFrames, type TextWire } from "../model/helpers/openai-wire.js";
import { geminiFrames, ollamaFrames } from "../model/helpers/provider-wire.js";
import { type ScriptedResponse, sse, wireServerForFile } from "../model/helpers/wire-server.js";
import { collect } from "./helpers.js";

/** The agent's structured output in native mode, through real model adapters against a local server. */

const Weather = z.object({ city: z.string(), celsius: z.number() });
const usage = { input: 5, output: 9 };
const wire = wireServerForFile();

const text = (frames: TextWire): ScriptedResponse => ({
  frames: [...frames.open, ...frames.deltas, ...frames.close],
});
const bodies = () => wire.requests.map((r) => r.body as Record<string, unknown>);
const toolNames = (body: Record<string, unknown>) =>
  ((body.tools as Array<Record<string, unknown>> | undefined) ?? []).map(
    (t) => (t.function as { name: string } | undefined)?.name ?? t.name,
  );

const weatherTool = () =>
  functionTool({
    name: "get_weather",
    description: "Weather for a city",
    input: z.object({ city: z.string() }),
    readOnly: true,
    execute: ({ city }) => `sunny, 21°C in ${city}`,
  });

/** An OpenAI Chat stream that calls one tool. */
function chatToolCall(name = "get_weather", args = '{"city":"Paris"}'): ScriptedResponse {
  const chunk = (delta: unknown, finish: string | null) =>
    sse({
      id: "chatcmpl-t",
      object: "chat.completion.chunk",
      created: 1,
      model: "gpt-4o",
      choices: [{ index: 0, delta, finish_reason: finish }],
    });
  return {
    frames: [
      chunk(
        {
          role: "assistant",
          tool_calls: [
            {
              index: 0,
              id: "call_w1",
              type: "function",
              function: { name, arguments: args },
            },
          ],
        },
        null,
      ),
      chunk({}, "tool_calls"),
      sse("[DONE]"),
    ],
  };
}

/** A Gemini stream that calls get_weather. */
function geminiToolCall(): ScriptedResponse {
  return {
    frames: [
      sse({
        candidates: [
          {
            content: {
              role: "model",
              parts: [{ functionCall: { name: "get_weather", args: { city: "Paris" } } }],
            },
            finishReason: "STOP",
            index: 0,
          },
        ],
        usageMetadata: { promptTokenCount: 5, candidatesTokenCount: 3 },
        modelVersion: "gemini-2.5-flash",
      }),
    ],
  };
}

const openai = () => new OpenAIChatModel({ model: "gpt-4o", baseURL: `${wire.url}/v1`, apiKey: "k" });
const gemini = (model = "gemini-2.5-flash") =>
  new GeminiModel({ model, baseURL: `${wire.url}/v1beta`, apiKey: "g" });
const ANSWER = ['{"city":"Paris",', '"celsius":21}'];

describe("native structured output through the agent", () => {
  it("OpenAI Chat: response_format goes beside the tools; the tool runs, the JSON answer is the typed output", async () => {
    wire.queue(chatToolCall(), text(chatCompletionFrames(ANSWER, usage)));
    const agent = new Agent({ name: "a", model: openai(), toolkit: [weatherTool()] });
    const reply = await agent.reply(userMsg("weather in Paris?"), {
      structuredOutput: Weather,
      structuredOutputMode: "native",
    });
    expect(reply.finishedReason).toBe("completed");
    expect(reply.structuredOutput).toEqual({ city: "Paris", celsius: 21 });
    expectTypeOf(reply.structuredOutput).toEqualTypeOf<{ city: string; celsius: number } | undefined>();
    expect(blocksOf(reply, "tool_result")[0]).toMatchObject({ name: "get_weather", state: "success" });
    const [first, second] = bodies();
    for (const body of [first!, second!]) {
      expect(toolNames(body)).toEqual(["get_weather"]); // no injected generate_structured_output
      expect(body.response_format).toEqual({
        type: "json_schema",
        json_schema: {
          name: "structured_output",
          strict: true,
          schema: {
            type: "object",
            properties: { city: { type: "string" }, celsius: { type: "number" } },
            required: ["city", "celsius"],
            additionalProperties: false,
          },
        },
      });
    }
    expect(agent.state.replyContext).toBeUndefined();
  });

  it("a schema violation goes back to the model naming the field, and the corrected answer is taken", async () => {
    wire.queue(
      text(chatCompletionFrames(['{"city":"Paris","celsius":"warm"}'], usage)),
      text(chatCompletionFrames(ANSWER, usage)),
    );
    const agent = new Agent({ name: "a", model: openai() });
    const reply = await agent.reply(userMsg("weather in Paris?"), {
      structuredOutput: Weather,
      structuredOutputMode: "native",
    });
    expect(reply.structuredOutput).toEqual({ city: "Paris", celsius: 21 });
    const hints = blocksOf(reply, "hint");
    expect(hints).toHaveLength(1);
    expect(hints[0]!.text).toContain("celsius");
    expect(wire.requests).toHaveLength(2);
    // The second request carries the hint to the model, and still the format.
    expect(JSON.stringify(bodies()[1]!.messages)).toContain("did not fit the schema: celsius");
    expect(bodies()[1]!.response_format).toBeDefined();
  });

  it("an answer that never fits ends at maxIters without an output (as in tool mode)", async () => {
    wire.queue(text(chatCompletionFrames(["not json"], usage)));
    const agent = new Agent({ name: "a", model: openai(), maxIters: 2 });
    const reply = await agent.reply(userMsg("weather?"), {
      structuredOutput: Weather,
      structuredOutputMode: "native",
    });
    expect(reply.finishedReason).toBe("exceed_max_iters");
    expect(reply.structuredOutput).toBeUndefined();
    expect(blocksOf(reply, "hint").map((h) => h.text)).toEqual([
      expect.stringContaining("not valid JSON"),
      expect.stringContaining("not valid JSON"),
    ]);
  });

  it("a refusal ends the reply without an output and without another call; a cut-off answer is retried", async () => {
    const chunk = (delta: unknown, finish: string | null) =>
      sse({
        id: "chatcmpl-r",
        object: "chat.completion.chunk",
        created: 1,
        model: "gpt-4o",
        choices: [{ index: 0, delta, finish_reason: finish }],
      });
    wire.queue({
      frames: [
        chunk({ role: "assistant", content: null, refusal: "" }, null),
        chunk({ refusal: "I can't help with that." }, null),
        chunk({}, "stop"),
        sse("[DONE]"),
      ],
    });
    const refused = await new Agent({ name: "a", model: openai() }).reply(userMsg("weather?"), {
      structuredOutput: Weather,
      structuredOutputMode: "native",
    });
    expect(wire.requests).toHaveLength(1);
    expect(refused).toMatchObject({ finishedReason: "completed", stopReason: "refusal" });
    expect(refused.structuredOutput).toBeUndefined();
    expect(blocksOf(refused, "hint")).toEqual([]);

    wire.requests.length = 0;
    const cut = chatCompletionFrames(['{"city":"Par'], usage);
    cut.close[0] = chunk({}, "length");
    wire.queue(text(cut), text(chatCompletionFrames(ANSWER, usage)));
    const retried = await new Agent({ name: "a", model: openai() }).reply(userMsg("weather?"), {
      structuredOutput: Weather,
      structuredOutputMode: "native",
    });
    expect(wire.requests).toHaveLength(2);
    expect(blocksOf(retried, "hint")[0]!.text).toContain("cut off at the output token limit");
    expect(retried.structuredOutput).toEqual({ city: "Paris", celsius: 21 });
  });

  it("Gemini 2.5 (no schema beside tools): tools first, then one call with responseSchema and no tools", async () => {
    wire.queue(
      geminiToolCall(),
      text(geminiFrames(["It is sunny, 21°C in Paris."], usage)),
      text(geminiFrames(ANSWER, usage)),
    );
    const agent = new Agent({ name: "a", model: gemini(), toolkit: [weatherTool()] });
    const reply = await agent.reply(userMsg("weather in Paris?"), {
      structuredOutput: Weather,
      structuredOutputMode: "native",
    });
    expect(reply.structuredOutput).toEqual({ city: "Paris", celsius: 21 });
    const [first, second, third] = bodies();
    for (const body of [first!, second!]) {
      expect(JSON.stringify(body.tools)).toContain("get_weather");
      expect((body.generationConfig as Record<string, unknown> | undefined)?.responseSchema).toBeUndefined();
    }
    expect(third!.tools).toBeUndefined();
    expect(third!.generationConfig).toMatchObject({
      responseMimeType: "application/json",
      responseSchema: { type: "OBJECT", required: ["city", "celsius"] },
    });
    expect(JSON.stringify(third!.contents)).toContain("final answer as JSON");
  });

  it("Gemini 3 takes responseSchema beside the function declarations", async () => {
    wire.queue(text(geminiFrames(ANSWER, usage, "gemini-3-flash-preview")));
    const agent = new Agent({ name: "a", model: gemini("gemini-3-flash-preview"), toolkit: [weatherTool()] });
    const reply = await agent.reply(userMsg("weather?"), {
      structuredOutput: Weather,
      structuredOutputMode: "auto",
    });
    expect(reply.structuredOutput).toEqual({ city: "Paris", celsius: 21 });
    expect(JSON.stringify(bodies()[0]!.tools)).toContain("get_weather");
    expect(bodies()[0]!.generationConfig).toMatchObject({ responseMimeType: "application/json" });
  });

  it("OpenAI Responses and Ollama: text.format / format on a call without tools", async () => {
    wire.queue(text(responsesFrames(ANSWER, usage)));
    const responses = new OpenAIResponsesModel({ model: "gpt-5", baseURL: `${wire.url}/v1`, apiKey: "k" });
    const r1 = await new Agent({ name: "a", model: responses }).reply(userMsg("weather?"), {
      structuredOutput: Weather,
      structuredOutputMode: "native",
    });
    expect(r1.structuredOutput).toEqual({ city: "Paris", celsius: 21 });
    expect(bodies()[0]!.text).toMatchObject({ format: { type: "json_schema", name: "structured_output" } });

    wire.queue(text(ollamaFrames(ANSWER, usage)));
    const ollama = new OllamaModel({ model: "llama3.1", host: wire.url });
    const r2 = await new Agent({ name: "a", model: ollama }).reply(userMsg("weather?"), {
      structuredOutput: Weather,
      structuredOutputMode: "auto",
    });
    expect(r2.structuredOutput).toEqual({ city: "Paris", celsius: 21 });
    expect(bodies()[1]!.format).toMatchObject({ type: "object", required: ["city", "celsius"] });
  });
});

describe("a paused native reply", () => {
  it("resumes in native mode in another agent that loaded the state", async () => {
    const log: string[] = [];
    const note = functionTool({
      name: "write_note",
      description: "Writes a note",
      input: z.object({ text: z.string() }),
      execute: ({ text }) => {
        log.push(text);
        return "written";
      },
    });
    wire.queue(chatToolCall("write_note", '{"text":"Paris 21"}'));
    const first = new Agent({ name: "a", model: openai(), toolkit: [note] });
    const events = await collect(
      first.replyStream(userMsg("note the weather"), {
        structuredOutput: Weather,
        structuredOutputMode: "native",
      }),
    );
    const ask = events.find((e) => e.type === "REQUIRE_USER_CONFIRM");
    if (ask?.type !== "REQUIRE_USER_CONFIRM") throw new Error("no confirmation asked");
    expect(first.state.replyContext?.structuredOutputMode).toBe("native");

    const state = parseAgentState(JSON.parse(JSON.stringify(first.state)));
    wire.queue(text(chatCompletionFrames(ANSWER, usage)));
    const second = new Agent({ name: "a", model: openai(), toolkit: [note], state });
    const reply = await second.reply(
      userConfirmResult({
        replyId: ask.replyId,
        confirmResults: [{ confirmed: true, toolCall: ask.toolCalls[0]! }],
      }),
      { structuredOutput: Weather },
    );
    expect(log).toEqual(["Paris 21"]);
    expect(reply.structuredOutput).toEqual({ city: "Paris", celsius: 21 });
    const resumed = bodies()[1]!;
    expect(resumed.response_format).toBeDefined();
    expect(toolNames(resumed)).toEqual(["write_note"]);
  });
});

describe("choosing the mode", () => {
  it("the default stays the injected tool: no response_format is sent", async () => {
    wire.queue(text(chatCompletionFrames(["x"], usage)));
    const agent = new Agent({ name: "a", model: openai(), maxIters: 1 });
    await agent.reply(userMsg("weather?"), { structuredOutput: Weather });
    expect(bodies()[0]!.response_format).toBeUndefined();
    expect(toolNames(bodies()[0]!)).toEqual(["generate_structured_output"]);
  });

  it("auto on OpenAI with tools is native; auto on Gemini 2.5 with tools is the tool mode", async () => {
    wire.queue(text(chatCompletionFrames(ANSWER, usage)));
    await new Agent({ name: "a", model: openai(), toolkit: [weatherTool()] }).reply(userMsg("w?"), {
      structuredOutput: Weather,
      structuredOutputMode: "auto",
    });
    expect(bodies()[0]!.response_format).toBeDefined();
    expect(toolNames(bodies()[0]!)).toEqual(["get_weather"]);

    wire.queue(text(geminiFrames(["x"], usage)));
    await new Agent({ name: "a", model: gemini(), toolkit: [weatherTool()], maxIters: 1 }).reply(
      userMsg("w?"),
      {
        structuredOutput: Weather,
        structuredOutputMode: "auto",
      },
    );
    const body = bodies()[1]!;
    expect(JSON.stringify(body)).not.toContain("responseSchema");
    expect(JSON.stringify(body.tools)).toContain("generate_structured_output");
  });

  it("offline: a ScriptedModel that says it takes the format beside tools goes native under auto", async () => {
    const model = new ScriptedModel([{ text: '{"city":"Paris","celsius":21}' }], {
      nativeStructuredOutput: "with_tools",
    });
    const reply = await new Agent({ name: "a", model, toolkit: [weatherTool()] }).reply(userMsg("w?"), {
      structuredOutput: Weather,
      structuredOutputMode: "auto",
    });
    expect(reply.structuredOutput).toEqual({ city: "Paris", celsius: 21 });
    expect(model.calls[0]!.options.responseFormat).toMatchObject({ name: "structured_output", strict: true });
    expect(model.calls[0]!.options.tools?.map((t) => t.name)).toEqual(["get_weather"]);
  });

  it("auto with an Anthropic fallback stays on the tool; native there is refused before anything is sent", async () => {
    const claude = new AnthropicModel({ model: "claude-sonnet-4-5", baseURL: wire.url, apiKey: "k" });
    wire.queue(text(chatCompletionFrames(["x"], usage)));
    await new Agent({ name: "a", model: openai(), fallbackModel: claude, maxIters: 1 }).reply(userMsg("w?"), {
      structuredOutput: Weather,
      structuredOutputMode: "auto",
    });
    expect(bodies()[0]!.response_format).toBeUndefined();

    const agent = new Agent({ name: "a", model: claude });
    await expect(
      agent.reply(userMsg("w?"), { structuredOutput: Weather, structuredOutputMode: "native" }),
    ).rejects.toThrow(ReplyStateError);
    await expect(
      agent.reply(userMsg("w?"), { structuredOutput: Weather, structuredOutputMode: "native" }),
    ).rejects.toThrow(/claude-sonnet-4-5.*no native structured output/);
    expect(wire.requests).toHaveLength(1);
    expect(agent.state.context).toEqual([]);
  });
});
