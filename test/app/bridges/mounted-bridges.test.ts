import { describe, expect, it } from "vitest";
import { createApp } from "../../../src/app/server/app.js";
import { memoryBackend } from "../../../src/app/server/backend/memory-backend.js";
import { mountedRoutes } from "../../../src/app/server/mounted-routes.js";
import { ServiceRuntime } from "../../../src/app/server/runtime/service-runtime.js";
import { ScriptedModel } from "../../../src/testing/index.js";

describe("the service mounts the bridges", () => {
  it("serves /v1/openai, /v1/mcp and /v1/ai-sdk next to /v1, behind the same auth", async () => {
    const runtime = new ServiceRuntime({
      backend: memoryBackend(),
      agents: [{ name: "helper", model: new ScriptedModel([]) }],
    });
    try {
      const app = createApp(runtime, {
        mounts: mountedRoutes(runtime, { memory: { flush: async () => {} } }),
        tokens: new Map([["t", "alice"]]),
      });
      const auth = { authorization: "Bearer t" };
      const models = await app.request("/v1/openai/models", { headers: auth });
      expect(await models.json()).toEqual({
        object: "list",
        data: [{ id: "helper", object: "model", created: 0, owned_by: "agentscope" }],
      });
      expect((await app.request("/v1/openai/models")).status).toBe(401);
      const initialize = await app.request("/v1/mcp", {
        method: "POST",
        headers: {
          ...auth,
          "content-type": "application/json",
          accept: "application/json, text/event-stream",
        },
        body: JSON.stringify({
          jsonrpc: "2.0",
          id: 1,
          method: "initialize",
          params: {
            protocolVersion: "2025-06-18",
            capabilities: {},
            clientInfo: { name: "t", version: "1" },
          },
        }),
      });
      expect(initialize.status).toBe(200);
      expect(initialize.headers.get("mcp-session-id")).toMatch(/^[\w-]{36}$/);
      expect(await initialize.text()).toContain('"name":"agentscope"');
      const chat = (headers: Record<string, string>) =>
        app.request("/v1/ai-sdk/helper/chat", {
          method: "POST",
          headers: { ...headers, "content-type": "application/json" },
          body: JSON.stringify({ id: "c1", messages: [] }),
        });
      expect((await chat({})).status).toBe(401);
      const refused = await chat(auth);
      expect(refused.status).toBe(400);
      expect(await refused.text()).toContain("messages");
    } finally {
      await runtime.close();
    }
  });
});
