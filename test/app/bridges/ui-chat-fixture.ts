import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import { serve } from "@hono/node-server";
import type { Hono } from "hono";
import { z } from "zod";
import { uiChatRoutes } from "../../../src/app/bridges/index.js";
import { createApp } from "../../../src/app/server/app.js";
import { memoryBackend } from "../../../src/app/server/backend/memory-backend.js";
import type { ServiceVariables } from "../../../src/app/server/http/auth.js";
import { type ServiceAgentOptions, ServiceRuntime } from "../../../src/app/server/runtime/service-runtime.js";
import { functionTool, type Tool } from "../../../src/tool/index.js";

export const UI_TOKENS = new Map([
  ["alice-token", "alice"],
  ["bob-token", "bob"],
]);

/** A read-only tool that waits until the test opens the gate: a reply held mid-way, with no timing. */
export function gateTool(): { tool: Tool; open(): void; waiting(): Promise<void> } {
  let release: (() => void) | undefined;
  let arrived: (() => void) | undefined;
  let arrival = new Promise<void>((resolve) => {
    arrived = resolve;
  });
  const tool = functionTool({
    name: "wait_for_gate",
    description: "Waits until it is let through",
    input: z.object({}),
    readOnly: true,
    execute: async (_input, ctx) => {
      arrived?.();
      await new Promise<void>((resolve, reject) => {
        release = resolve;
        ctx.signal.addEventListener("abort", () => reject(new Error("interrupted at the gate")), {
          once: true,
        });
      });
      return "let through";
    },
  });
  return {
    tool,
    open: () => release?.(),
    waiting: async () => {
      await arrival;
      arrival = new Promise<void>((resolve) => {
        arrived = resolve;
      });
    },
  };
}

export interface UiChatServer {
  base: string;
  runtime: ServiceRuntime;
  /** The chat endpoint of an agent (useChat's `api`). */
  api(agent: string): string;
  close(): Promise<void>;
}

/**
 * A served runtime with the AI SDK bridge mounted, behind bearer auth (UI_TOKENS); `mounts` adds
 * more routes built on the same runtime (a test page, another bridge).
 */
export async function startUiChatServer(
  agents: ServiceAgentOptions[],
  mounts: (runtime: ServiceRuntime) => Array<Hono<{ Variables: ServiceVariables }> | Hono> = () => [],
): Promise<UiChatServer> {
  const runtime = new ServiceRuntime({ backend: memoryBackend(), agents, heartbeatMs: 50 });
  const app = createApp(runtime, { mounts: [uiChatRoutes(runtime), ...mounts(runtime)], tokens: UI_TOKENS });
  const server = serve({ fetch: app.fetch, hostname: "127.0.0.1", port: 0 });
  await new Promise<void>((resolve) => server.once("listening", () => resolve()));
  const { port } = server.address() as AddressInfo;
  const base = `http://127.0.0.1:${port}`;
  return {
    base,
    runtime,
    api: (agent) => `${base}/v1/ai-sdk/${agent}/chat`,
    close: async () => {
      (server as Server).closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await runtime.close();
    },
  };
}
