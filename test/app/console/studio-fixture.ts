import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import { serve } from "@hono/node-server";
import { z } from "zod";
import { Agent, type Middleware } from "../../../src/agent/index.js";
import { consoleRoutes } from "../../../src/app/console/index.js";
import { createApp } from "../../../src/app/server/app.js";
import { memoryBackend } from "../../../src/app/server/backend/memory-backend.js";
import type { EvalReports } from "../../../src/app/server/http/eval-reports.js";
import { evalRoutes } from "../../../src/app/server/http/eval-routes.js";
import { memoryRoutes } from "../../../src/app/server/http/memory-routes.js";
import { studioRoutes } from "../../../src/app/server/http/studio-routes.js";
import { timeTravelRoutes } from "../../../src/app/server/http/time-travel-routes.js";
import { ServiceRuntime } from "../../../src/app/server/runtime/service-runtime.js";
import { evalRecorder } from "../../../src/eval/index.js";
import type { Msg } from "../../../src/message/index.js";
import type { ChatModel, ChatOptions } from "../../../src/model/core.js";
import { pricingTable } from "../../../src/model/index.js";
import { subAgentTool } from "../../../src/multiagent/index.js";
import { InMemoryCheckpointStore } from "../../../src/state/index.js";
import { ScriptedModel, type ScriptedTurn } from "../../../src/testing/index.js";
import { functionTool, type Tool } from "../../../src/tool/index.js";

export const CLERK_PROMPT = "You are the refunds clerk. Look the order up before you refund it.";

const textOf = (msg: Msg | undefined) =>
  (msg?.content ?? []).map((b) => (b.type === "text" ? b.text : "")).join(" ");

/**
 * The clerk's model, by the conversation so far: "refund" → look the order up, then refund what
 * was paid (it asks first), then say so; "research" → the researcher sub-agent; anything else is
 * greeted. Every call is kept (`calls`), so a test can compare what the model received.
 */
export function clerkModel(): ChatModel & { calls: Array<{ messages: Msg[]; options?: ChatOptions }> } {
  const base = new ScriptedModel([]);
  const calls: Array<{ messages: Msg[]; options?: ChatOptions }> = [];
  const turn = (messages: Msg[]): ScriptedTurn => {
    const last = messages.at(-1);
    const results = (last?.role === "assistant" ? last.content : []).filter((b) => b.type === "tool_result");
    const ran = new Set(results.map((b) => b.name));
    if (ran.has("refund") || ran.has("researcher"))
      return { text: "Refunded $30 for order A1. Anything else?" };
    if (ran.has("lookup_order")) return { toolCalls: [{ name: "refund", input: { id: "A1", amount: 30 } }] };
    const text = textOf(messages.findLast((m) => m.role === "user"));
    if (text.includes("refund"))
      return { thinking: "Look it up first.", toolCalls: [{ name: "lookup_order", input: { id: "A1" } }] };
    if (text.includes("research")) return { toolCalls: [{ name: "researcher", input: { prompt: "A1" } }] };
    return { text: "Hello! Which order is it about?" };
  };
  return {
    name: "clerk-model",
    provider: "scripted",
    contextSize: base.contextSize,
    calls,
    countTokens: (messages, tools) => base.countTokens(messages, tools),
    stream(messages, options) {
      calls.push({ messages: structuredClone(messages), ...(options ? { options } : {}) });
      return new ScriptedModel([turn(messages)], { chunkSize: 3 }).stream(messages, options);
    },
  };
}

/** What the tools ran with, in order. */
export const toolRuns: Array<{ tool: string; input: unknown }> = [];

export function clerkTools(options: { refundReadOnly?: boolean } = {}): Tool[] {
  const lookup = functionTool({
    name: "lookup_order",
    description: "Looks an order up by id",
    input: z.object({ id: z.string().describe("the order id") }),
    readOnly: true,
    execute: (input) => {
      toolRuns.push({ tool: "lookup_order", input });
      return `order ${input.id}: a kettle, paid $30`;
    },
  }) as Tool;
  const refund = functionTool({
    name: "refund",
    description: "Refunds an order",
    input: z.object({ id: z.string(), amount: z.number().positive() }),
    readOnly: options.refundReadOnly ?? false,
    execute: (input) => {
      toolRuns.push({ tool: "refund", input });
      return `refunded $${input.amount} on ${input.id}`;
    },
  }) as Tool;
  return [lookup, refund];
}

/** A middleware that adds the shop's hours to the system prompt: the inspector must show it applied. */
export const shopHours: Middleware = {
  name: "shop-hours",
  systemPrompt: (prompt) => `${prompt}\n\nThe shop is open 9 to 5.`,
};

/** A sub-agent the clerk may call: its run nests inside the tool call. */
const researcher = () =>
  subAgentTool(
    new Agent({
      name: "researcher",
      systemPrompt: "You research orders.",
      model: new ScriptedModel([{ text: "A1 was paid by card." }, { text: "A1 was paid by card." }]),
    }),
    { name: "researcher", description: "Researches an order" },
  ) as Tool;

/** What the clerk's scripted model costs, when a test prices it. */
export const CLERK_PRICE = { input: 2, output: 8, asOf: "2026-11-01" };

/** The clerk as served (and as the eval rebuilds it, with the eval's model). */
export const clerkOptions = (
  model: ChatModel,
  options: { refundReadOnly?: boolean; priced?: boolean } = {},
) => ({
  name: "clerk",
  ...(options.priced ? { pricing: pricingTable({ prices: { "scripted:*": CLERK_PRICE } }) } : {}),
  systemPrompt: CLERK_PROMPT,
  model,
  toolkit: [...clerkTools(options), researcher()],
  middlewares: [shopHours, evalRecorder()],
  permission: { allow: ["lookup_order"], ask: ["researcher"] },
});

/** The clerk as the eval's agent factory builds it. */
export const clerkAgent = (model: ChatModel, options: { refundReadOnly?: boolean } = {}) =>
  new Agent(clerkOptions(model, options));

export interface StudioService {
  base: string;
  runtime: ServiceRuntime;
  model: ReturnType<typeof clerkModel>;
  close(): Promise<void>;
}

/**
 * The service with the studio routes and the console, serving the clerk, on a free port; with
 * `full`, also checkpoints (the time-travel routes) and a price for the clerk's model; the eval
 * runs of `evals` (none without: the Evals page says how to turn them on).
 */
export async function startStudioService(
  options: { full?: boolean; evals?: EvalReports } = {},
): Promise<StudioService> {
  const model = clerkModel();
  const runtime = new ServiceRuntime({
    backend: memoryBackend(),
    agents: [clerkOptions(model, { priced: options.full === true })],
    ...(options.full ? { checkpoints: { store: new InMemoryCheckpointStore() } } : {}),
  });
  const app = createApp(runtime, {
    mounts: [
      studioRoutes(runtime),
      evalRoutes(options.evals),
      memoryRoutes({ flush: async () => {} }),
      ...(options.full ? [timeTravelRoutes(runtime)] : []),
      consoleRoutes(),
    ],
  });
  const server = serve({ fetch: app.fetch, hostname: "127.0.0.1", port: 0 }) as Server;
  await new Promise<void>((resolve) => server.once("listening", () => resolve()));
  const { port } = server.address() as AddressInfo;
  return {
    base: `http://127.0.0.1:${port}`,
    runtime,
    model,
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await runtime.close();
    },
  };
}
