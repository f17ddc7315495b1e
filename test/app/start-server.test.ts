import { afterEach, expect, it } from "vitest";
import { type RunningServer, startServer } from "../../src/app/server/start-server.js";
import { conversationModel } from "./fixtures/agents.js";
import { json } from "./helpers.js";

const servers: RunningServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

const config = { agents: [{ name: "main", model: conversationModel() }], store: "memory:" };

it("without tokens it listens on 127.0.0.1 only, even when asked for another address, and says so", async () => {
  const server = await startServer({
    config,
    host: "0.0.0.0",
    port: 0,
    tokensEnv: "",
    withoutOptionalRoutes: true,
  });
  servers.push(server);
  expect(server.host).toBe("127.0.0.1");
  expect(server.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
  expect(server.notices.join("\n")).toContain("127.0.0.1 only");
  expect((await fetch(`${server.url}/v1/sessions`)).status).toBe(200);
});

it("tokens from AGENTSCOPE_TOKENS and the config map to users; a request without one is a 401", async () => {
  const server = await startServer({
    config: { ...config, tokens: { "cfg-token": "carol" } },
    port: 0,
    tokensEnv: "env-token:dave",
    withoutOptionalRoutes: true,
  });
  servers.push(server);
  expect(server.notices).toEqual([]);
  expect((await fetch(`${server.url}/v1/sessions`, { method: "POST" })).status).toBe(401);
  const auth = (token: string) => ({ headers: { authorization: `Bearer ${token}` } });
  const carol = await json(fetch(`${server.url}/v1/sessions`, { method: "POST", ...auth("cfg-token") }));
  const dave = await json(fetch(`${server.url}/v1/sessions`, { method: "POST", ...auth("env-token") }));
  expect([carol.owner, dave.owner]).toEqual(["carol", "dave"]);
  expect((await fetch(`${server.url}/v1/sessions/${carol.sessionId}`, auth("env-token"))).status).toBe(404);
});

it("a malformed AGENTSCOPE_TOKENS is refused with the expected form", async () => {
  await expect(
    startServer({ config, port: 0, tokensEnv: "justatoken", withoutOptionalRoutes: true }),
  ).rejects.toThrow(/token1:alice/);
});
