import { LLMock } from "@copilotkit/aimock";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { Agent } from "../../src/agent/index.js";
import { type AgentEvent, applyEvent, userConfirmResult } from "../../src/event/index.js";
import { blocksOf, type Msg, textOf, userMsg } from "../../src/message/index.js";
import { type ChatModel, modelFromSpec } from "../../src/model/index.js";
import { functionTool } from "../../src/tool/index.js";

/** The same agent, unchanged, on every provider aimock speaks: a tool round trip and a confirmation. */
const providers: Array<[string, (origin: string) => ChatModel]> = [
  [
    "openai",
    (o) => modelFromSpec({ provider: "openai", model: "gpt-4o-mini", baseURL: `${o}/v1`, apiKey: "sk-test" }),
  ],
  [
    "openai-responses",
    (o) =>
      modelFromSpec({ provider: "openai-responses", model: "gpt-5", baseURL: `${o}/v1`, apiKey: "sk-test" }),
  ],
  [
    "anthropic",
    (o) => modelFromSpec({ provider: "anthropic", model: "claude-sonnet-4-5", baseURL: o, apiKey: "sk-ant" }),
  ],
  [
    "gemini",
    (o) =>
      modelFromSpec({ provider: "gemini", model: "gemini-2.5-flash", baseURL: `${o}/v1beta`, apiKey: "g" }),
  ],
  ["ollama", (o) => modelFromSpec({ provider: "ollama", model: "llama3.1", baseURL: o })],
];

let mock: LLMock;

beforeAll(async () => {
  mock = new LLMock({ port: 0, host: "127.0.0.1", logLevel: "silent" });
  mock.on(
    { userMessage: "weather", hasToolResult: false },
    { toolCalls: [{ id: "call_w1", name: "get_weather", arguments: { city: "Paris" } }] },
  );
  mock.on({ userMessage: "weather", hasToolResult: true }, { content: "Sunny in Paris, 21°C." });
  mock.on(
    { userMessage: "note", hasToolResult: false },
    { toolCalls: [{ id: "call_n1", name: "save_note", arguments: { text: "milk" } }] },
  );
  mock.on({ userMessage: "note", hasToolResult: true }, { content: "Saved." });
  await mock.start();
});

afterAll(async () => {
  await mock.stop();
});

function agentOn(model: ChatModel, notes: string[]) {
  const weather = functionTool({
    name: "get_weather",
    description: "Weather for a city",
    input: z.object({ city: z.string() }),
    readOnly: true,
    execute: ({ city }) => `sunny, 21°C in ${city}`,
  });
  const saveNote = functionTool({
    name: "save_note",
    description: "Save a note",
    input: z.object({ text: z.string() }),
    execute: ({ text }) => {
      notes.push(text);
      return "saved";
    },
  });
  return new Agent({ name: "helper", systemPrompt: "Be brief.", model, toolkit: [weather, saveNote] });
}

async function fold(stream: AsyncIterable<AgentEvent>, start?: Msg) {
  let msg = start;
  const events: AgentEvent[] = [];
  for await (const event of stream) {
    events.push(event);
    msg = applyEvent(msg, event);
  }
  return { msg: msg!, events };
}

describe.each(providers)("the same agent on %s", (_name, create) => {
  it("does a tool round trip, and the folded stream equals the stored reply", async () => {
    const agent = agentOn(create(mock.url), []);
    const { msg, events } = await fold(agent.replyStream(userMsg("weather in Paris?")));
    const stored = agent.state.context.at(-1)!;
    expect(msg).toEqual(stored);
    expect(stored.finishedReason).toBe("completed");
    expect(blocksOf(stored, "tool_result")[0]).toMatchObject({
      name: "get_weather",
      state: "success",
      output: "sunny, 21°C in Paris",
    });
    expect(textOf(stored)).toBe("Sunny in Paris, 21°C.");
    expect(events.filter((e) => e.type === "MODEL_CALL_START")).toHaveLength(2);
  });

  it("pauses for a confirmation and finishes after it", async () => {
    const notes: string[] = [];
    const agent = agentOn(create(mock.url), notes);
    const first = await fold(agent.replyStream(userMsg("note: milk")));
    const ask = first.events.at(-1)!;
    expect(ask.type).toBe("REQUIRE_USER_CONFIRM");
    if (ask.type !== "REQUIRE_USER_CONFIRM") return;
    const second = await fold(
      agent.replyStream(
        userConfirmResult({
          replyId: ask.replyId,
          confirmResults: [{ confirmed: true, toolCall: ask.toolCalls[0]! }],
        }),
      ),
      first.msg,
    );
    expect(notes).toEqual(["milk"]);
    expect(second.msg).toEqual(agent.state.context.at(-1));
    expect(textOf(second.msg)).toBe("Saved.");
  });
});
