/** The OpenAI Agents SDK: `run(agent, input, { stream: true })` with its Chat Completions model. */
import { Agent, OpenAIChatCompletionsModel, run, setTracingDisabled, tool } from "@openai/agents";
import OpenAI from "openai";
import { z } from "zod";
import { TOOL_NAME, toolResultText } from "../sse-script.js";
import { type BenchClient, PROMPT, TOOL_DESCRIPTION } from "./client.js";

export async function openaiAgentsClient(baseURL: string): Promise<BenchClient> {
  setTracingDisabled(true);
  const client = new OpenAI({ baseURL, apiKey: "bench", maxRetries: 0 });
  const agents = new Map<string, Agent>();
  const getWeather = tool({
    name: TOOL_NAME,
    description: TOOL_DESCRIPTION,
    parameters: z.object({ city: z.string() }),
    execute: async ({ city }) => toolResultText(city),
  });
  const agentFor = (model: string) => {
    let agent = agents.get(model);
    if (!agent) {
      agent = new Agent({
        name: "bench",
        instructions: "",
        model: new OpenAIChatCompletionsModel(client, model),
        tools: model === "tool" ? [getWeather] : [],
      });
      agents.set(model, agent);
    }
    return agent;
  };

  async function reply(model: string): Promise<string> {
    const result = await run(agentFor(model), PROMPT, { stream: true });
    let text = "";
    for await (const part of result.toTextStream()) text += part;
    await result.completed;
    return text;
  }

  return { name: "OpenAI Agents", text: reply, toolRoundTrip: () => reply("tool") };
}
