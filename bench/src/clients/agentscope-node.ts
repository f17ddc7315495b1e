/**
 * agentscope with its HTTP transport chosen explicitly: `node` (node:http, keep-alive agent) or
 * `fetch`, the same Agent work as the `agentscope` client (which takes the runtime's default), so the
 * two transports are compared side by side whatever the default is.
 */
import { importAgentscope, importLibraryZod } from "../agentscope-dist.js";
import { TOOL_NAME, toolResultText } from "../sse-script.js";
import { type BenchClient, PROMPT, TOOL_DESCRIPTION } from "./client.js";

async function agentscopeOn(transport: "node" | "fetch", baseURL: string): Promise<BenchClient> {
  const as = await importAgentscope();
  const { z } = await importLibraryZod();
  const getWeather = as.functionTool({
    name: TOOL_NAME,
    description: TOOL_DESCRIPTION,
    input: z.object({ city: z.string() }),
    readOnly: true,
    execute: ({ city }) => toolResultText(city),
  });
  const agents = new Map<string, InstanceType<typeof as.Agent>>();
  const agentFor = (name: string) => {
    let agent = agents.get(name);
    if (!agent) {
      const model = new as.OpenAIChatModel({
        model: name,
        baseURL,
        apiKey: "bench",
        maxRetries: 0,
        transport,
      });
      agent = new as.Agent({ name: "bench", model, toolkit: name === "tool" ? [getWeather] : [] });
      agents.set(name, agent);
    }
    return agent;
  };
  async function reply(name: string): Promise<string> {
    const agent = agentFor(name);
    const state = agent.createState();
    let replyId: string | undefined;
    for await (const event of agent.replyStream(as.userMsg(PROMPT), { state })) {
      replyId ??= event.replyId;
      if (event.type === "REPLY_END" && event.finishedReason !== "completed") {
        throw new Error(`agentscope reply ended ${event.finishedReason}: ${event.error?.message ?? ""}`);
      }
    }
    const msg = state.context.find((m) => m.id === replyId);
    if (!msg) throw new Error("agentscope: no reply Msg in the state");
    return as.textOf(msg);
  }
  return { name: `agentscope (${transport})`, text: reply, toolRoundTrip: () => reply("tool") };
}

export const agentscopeNodeClient = (baseURL: string) => agentscopeOn("node", baseURL);
export const agentscopeFetchClient = (baseURL: string) => agentscopeOn("fetch", baseURL);
