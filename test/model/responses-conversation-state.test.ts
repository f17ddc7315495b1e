import { expect, it } from "vitest";
import { z } from "zod";
import { Agent } from "../../src/agent/index.js";
import { userMsg } from "../../src/message/index.js";
import { OpenAIResponsesModel } from "../../src/model/openai/responses-model.js";
import type { AgentState } from "../../src/state/index.js";
import { functionTool } from "../../src/tool/index.js";
import { replayFrames, wireBody } from "./helpers/replay.js";
import { wireServerForFile } from "./helpers/wire-server.js";

const wire = wireServerForFile();

const FIRST = "resp_68af4030592c8193b2e3b6d4b1b4a7c80fbc42d3b5c3f0e1";
const SECOND = "resp_68af40345e1c8193a6f0b2d9c8e7f6a50fbc42d3b5c3f0e1";
const serve = (...names: string[]) =>
  wire.queue(...names.map((name) => ({ frames: replayFrames(wireBody(name), "event per write") })));
const sent = (index: number) =>
  wire.requests[index]?.body as { input: unknown[]; previous_response_id?: string };

const weather = functionTool({
  name: "get_weather",
  description: "Weather for a city",
  input: z.object({ city: z.string() }),
  readOnly: true,
  execute: ({ city }) => `sunny, 21°C in ${city}`,
});
const agentOn = (state?: AgentState) =>
  new Agent({
    name: "helper",
    systemPrompt: "Be brief.",
    model: new OpenAIResponsesModel({
      model: "gpt-5.3-codex",
      baseURL: `${wire.url}/v1`,
      apiKey: "k",
      store: true,
      conversationState: true,
    }),
    toolkit: [weather],
    ...(state === undefined ? {} : { state }),
  });

it("continues the stored conversation: previous_response_id and only the new input, also after a resume", async () => {
  serve(
    "openai-responses-reasoning-tool-call.sse",
    "openai-responses-final-answer.sse",
    "openai-responses-final-answer.sse",
  );
  const agent = agentOn();
  await agent.reply(userMsg("Weather in Paris?"));
  expect(sent(0).previous_response_id).toBeUndefined();
  expect(sent(0).input).toHaveLength(2); // system + user
  expect(sent(1).previous_response_id).toBe(FIRST);
  expect(sent(1).input).toEqual([
    { type: "function_call_output", call_id: "call_Qx3vWq8mZ1yKcT7bN2pL", output: "sunny, 21°C in Paris" },
  ]);
  expect(agent.state.context.at(-1)?.metadata.responseId).toBe(SECOND);

  // A new process: the state as a store keeps it (plain JSON), a new agent continues the same conversation.
  const resumed = agentOn(JSON.parse(JSON.stringify(agent.state)) as AgentState);
  await resumed.reply(userMsg("And tomorrow?"));
  expect(sent(2).previous_response_id).toBe(SECOND);
  expect(sent(2).input).toEqual([{ role: "user", content: "And tomorrow?" }]);
});
