/** agentscope: `Agent.replyStream` with `OpenAIChatModel` pointed at the mock; every event consumed. */
import { importAgentscope, importLibraryZod } from "../agentscope-dist.js";
import { TOOL_NAME, toolResultText } from "../sse-script.js";
import { type BenchClient, PROMPT, TOOL_DESCRIPTION } from "./client.js";

/**
 * `dir` picks another build (A/B runs); `transport` pins the HTTP transport (`node` or `fetch`)
 * instead of the runtime's default.
 */
export async function agentscopeClient(
  baseURL: string,
  dir?: string,
  transport?: "node" | "fetch",
): Promise<BenchClient> {
  const as = await importAgentscope(dir);
  const { z } = await importLibraryZod(dir);
  const model = (name: string) =>
    new as.OpenAIChatModel({
      model: name,
      baseURL,
      apiKey: "bench",
      maxRetries: 0,
      ...(transport === undefined ? {} : { transport }),
    });
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
      agent = new as.Agent({
        name: "bench",
        model: model(name),
        toolkit: name === "tool" ? [getWeather] : [],
      });
      agents.set(name, agent);
    }
    return agent;
  };

  /** One reply on a fresh session; the text is read from the reply Msg the events assembled. */
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

  const name = transport ? `agentscope (${transport})` : dir ? `agentscope ${dir}` : "agentscope";
  return { name, text: reply, toolRoundTrip: () => reply("tool") };
}
