import { afterEach, describe, expect, it } from "vitest";
import { type CreateAppOptions, createApp } from "../../src/app/server/app.js";
import { memoryBackend } from "../../src/app/server/backend/memory-backend.js";
import { ServiceRuntime } from "../../src/app/server/runtime/service-runtime.js";
import { conversationModel, recordTool } from "./fixtures/agents.js";
import { json } from "./helpers.js";

const runtimes: ServiceRuntime[] = [];
afterEach(async () => {
  await Promise.all(runtimes.splice(0).map((r) => r.close()));
});

function setup(options: CreateAppOptions = {}) {
  const runtime = new ServiceRuntime({
    backend: memoryBackend(),
    agents: [{ name: "main", model: conversationModel(), toolkit: [recordTool()] }],
  });
  runtimes.push(runtime);
  const app = createApp(runtime, options);
  const base = "http://127.0.0.1:8787";
  const request = (path: string, init: RequestInit = {}) => app.request(`${base}${path}`, init);
  return { runtime, app, request };
}

const JSON_HEADERS = { "content-type": "application/json" };

describe("request bodies", () => {
  it("a JSON route refuses a text/plain body with 415 and creates nothing", async () => {
    const { request, runtime } = setup();
    const response = await request("/v1/sessions", {
      method: "POST",
      headers: { "content-type": "text/plain" },
      body: "{}",
    });
    expect(response.status).toBe(415);
    expect((await json(response)).error.type).toBe("unsupported_media_type");
    expect((await runtime.listSessions("local")).sessions).toEqual([]);
  });

  it("accepts application/json (with a charset) and an empty body without a type", async () => {
    const { request } = setup();
    const typed = await request("/v1/sessions", {
      method: "POST",
      headers: { "content-type": "application/json; charset=utf-8" },
      body: "{}",
    });
    expect(typed.status).toBe(201);
    expect((await request("/v1/sessions", { method: "POST" })).status).toBe(201);
  });
});

describe("hosts and origins", () => {
  it("refuses a Host that is not the server's (DNS rebinding) with 403, on the API and the console", async () => {
    const { app } = setup();
    for (const path of ["/v1/sessions", "/v1/health"]) {
      const response = await app.request(`http://evil.example:8787${path}`);
      expect(response.status).toBe(403);
      expect((await json(response)).error.message).toContain("evil.example");
    }
    for (const host of ["localhost", "127.0.0.1", "[::1]"])
      expect((await app.request(`http://${host}:8787/v1/sessions`)).status).toBe(200);
  });

  it("accepts configured host names, and any host with '*'", async () => {
    expect(
      (await setup({ allowedHosts: ["agents.internal"] }).app.request("http://agents.internal/v1/health"))
        .status,
    ).toBe(200);
    expect((await setup({ allowedHosts: "*" }).app.request("http://evil.example/v1/health")).status).toBe(
      200,
    );
  });

  it("refuses a state-changing request from another origin with 403 and allows the same origin", async () => {
    const { request, runtime } = setup();
    const cross = await request("/v1/sessions", {
      method: "POST",
      headers: { ...JSON_HEADERS, origin: "http://evil.example" },
      body: "{}",
    });
    expect(cross.status).toBe(403);
    expect(cross.headers.get("access-control-allow-origin")).toBeNull();
    const nullOrigin = await request("/v1/sessions", { method: "POST", headers: { origin: "null" } });
    expect(nullOrigin.status).toBe(403);
    expect((await runtime.listSessions("local")).sessions).toEqual([]);
    const same = await request("/v1/sessions", {
      method: "POST",
      headers: { ...JSON_HEADERS, origin: "http://127.0.0.1:8787" },
      body: "{}",
    });
    expect(same.status).toBe(201);
  });

  it("answers CORS preflights and sets CORS headers only for configured origins", async () => {
    const { request } = setup({ corsOrigins: ["https://app.example"] });
    const preflight = await request("/v1/sessions", {
      method: "OPTIONS",
      headers: { origin: "https://app.example", "access-control-request-method": "POST" },
    });
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get("access-control-allow-origin")).toBe("https://app.example");
    expect(preflight.headers.get("access-control-allow-headers")).toContain("content-type");
    const created = await request("/v1/sessions", {
      method: "POST",
      headers: { ...JSON_HEADERS, origin: "https://app.example" },
      body: "{}",
    });
    expect(created.status).toBe(201);
    expect(created.headers.get("access-control-allow-origin")).toBe("https://app.example");

    const other = await request("/v1/sessions", {
      method: "OPTIONS",
      headers: { origin: "https://other.example", "access-control-request-method": "POST" },
    });
    expect(other.status).toBe(403);
    expect(other.headers.get("access-control-allow-origin")).toBeNull();
    const read = await request("/v1/sessions", { headers: { origin: "https://other.example" } });
    expect(read.headers.get("access-control-allow-origin")).toBeNull();
  });
});

describe("tokens", () => {
  it("accepts ?access_token= only on the event stream", async () => {
    const { request } = setup({ tokens: new Map([["t-alice", "alice"]]) });
    expect((await request("/v1/sessions?access_token=t-alice")).status).toBe(401);
    const created = await json(
      request("/v1/sessions", {
        method: "POST",
        headers: { ...JSON_HEADERS, authorization: "Bearer t-alice" },
        body: "{}",
      }),
    );
    expect((await request(`/v1/sessions/${created.sessionId}?access_token=t-alice`)).status).toBe(401);
    const controller = new AbortController();
    const events = await request(`/v1/sessions/${created.sessionId}/events?access_token=t-alice`, {
      signal: controller.signal,
    });
    expect(events.status).toBe(200);
    controller.abort();
    await events.body?.cancel();
  });

  it("creating a session with another user's id is a 404, like every other route", async () => {
    const { request } = setup({
      tokens: new Map([
        ["t-alice", "alice"],
        ["t-bob", "bob"],
      ]),
    });
    const create = (token: string) =>
      request("/v1/sessions", {
        method: "POST",
        headers: { ...JSON_HEADERS, authorization: `Bearer ${token}` },
        body: JSON.stringify({ sessionId: "shared-name" }),
      });
    expect((await create("t-alice")).status).toBe(201);
    const bob = await create("t-bob");
    expect(bob.status).toBe(404);
    expect((await json(bob)).error.message).not.toContain("exists");
    expect((await create("t-alice")).status).toBe(409);
  });
});
