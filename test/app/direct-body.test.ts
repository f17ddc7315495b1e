import { Hono } from "hono";
import { afterEach, describe, expect, it } from "vitest";
import { createApp } from "../../src/app/server/app.js";
import { memoryBackend } from "../../src/app/server/backend/memory-backend.js";
import { sendBodiesDirectly, withDirectBody } from "../../src/app/server/http/direct-body.js";
import { ServiceRuntime } from "../../src/app/server/runtime/service-runtime.js";
import { conversationModel } from "./fixtures/agents.js";
import { readSse } from "./helpers.js";
import { type LoopbackServer, serveOnLoopback } from "./loopback-server.js";

const servers: LoopbackServer[] = [];
const runtimes: ServiceRuntime[] = [];
afterEach(async () => {
  for (const server of servers.splice(0)) await server.close();
  await Promise.all(runtimes.splice(0).map((runtime) => runtime.close()));
});

async function listen(
  fetch: (request: Request, env?: unknown) => Response | Promise<Response>,
): Promise<string> {
  const server = await serveOnLoopback(fetch);
  servers.push(server);
  return server.base;
}

/** A body that must never be read on Node: reading it errors the response. */
const unreadable = () =>
  new ReadableStream<Uint8Array>({
    pull(controller) {
      controller.error(new Error("the fallback body was read"));
    },
  });

describe("sendBodiesDirectly", () => {
  const app = new Hono();
  app.use("*", async (c, next) => {
    await next();
    c.res.headers.set("x-set-after-next", "yes"); // as the CORS guard does
  });
  app.get("/direct", () =>
    withDirectBody(new Response(unreadable(), { status: 207, headers: { "x-kind": "direct" } }), (out) => {
      out.write("written ");
      setTimeout(() => out.end("directly"), 5);
    }),
  );
  app.get("/plain", (c) => c.text("plain body"));
  const fetch = sendBodiesDirectly(app.fetch);

  it("on Node writes a marked response's body itself, with the status and the headers middleware set last", async () => {
    const base = await listen(fetch);
    const response = await globalThis.fetch(`${base}/direct`);
    expect(response.status).toBe(207);
    expect(response.headers.get("x-kind")).toBe("direct");
    expect(response.headers.get("x-set-after-next")).toBe("yes");
    expect(await response.text()).toBe("written directly");
    const plain = await globalThis.fetch(`${base}/plain`);
    expect(await plain.text()).toBe("plain body");
  });

  it("off Node (no outgoing response in the env) returns the response as it is", async () => {
    const response = await fetch(new Request("http://localhost/direct"));
    expect(response.headers.get("x-kind")).toBe("direct");
    await expect(response.text()).rejects.toThrow(/fallback body was read/);
  });
});

describe("SSE served straight to the socket", () => {
  function service() {
    const backend = memoryBackend();
    let subscriptions = 0;
    const subscribe = backend.bus.subscribe.bind(backend.bus);
    backend.bus.subscribe = (sessionId, listener) => {
      subscriptions += 1;
      const off = subscribe(sessionId, listener);
      return () => {
        subscriptions -= 1;
        off();
      };
    };
    // non-ASCII text: frames are written as strings and must reach the client as UTF-8
    const model = conversationModel({ text: "Fertig — é, ✓, 中文, 🙂" });
    const runtime = new ServiceRuntime({ backend, agents: [{ name: "a", model }] });
    runtimes.push(runtime);
    const app = createApp(runtime, { corsOrigins: ["https://app.example"] });
    return { runtime, app, subscriptions: () => subscriptions };
  }

  it("sends the same frames as the portable body, with the CORS headers", async () => {
    const { runtime, app } = service();
    const base = await listen(app.fetch);
    const { sessionId } = await runtime.createSession("local");
    const started = await globalThis.fetch(`${base}/v1/sessions/${sessionId}/replies`, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        accept: "text/event-stream",
        origin: "https://app.example",
      },
      body: JSON.stringify({ text: "note it" }),
    });
    expect(started.headers.get("content-type")).toContain("text/event-stream");
    expect(started.headers.get("access-control-allow-origin")).toBe("https://app.example");
    const live = await readSse(started, (f) => f.event === "REPLY_END");
    expect(live.raw.startsWith(": connected\n\n")).toBe(true);
    expect(live.frames.at(-1)?.event).toBe("REPLY_END");
    const streamed = live.frames
      .filter((f) => f.event === "TEXT_BLOCK_DELTA")
      .map((f) => (f.data as { delta: string }).delta)
      .join("");
    expect(streamed).toBe("Fertig — é, ✓, 中文, 🙂");

    const path = `/v1/sessions/${sessionId}/events?after=0`;
    const overHttp = await readSse(await globalThis.fetch(`${base}${path}`), (f) => f.event === "REPLY_END");
    const portable = await readSse(await app.request(path), (f) => f.event === "REPLY_END");
    expect(overHttp.raw).toBe(portable.raw);
    expect(overHttp.frames.map((f) => f.id)).toEqual(live.frames.map((f) => f.id));
  });

  it("gives a page from an origin that is not listed no CORS headers on a stream", async () => {
    const { runtime, app } = service();
    const base = await listen(app.fetch);
    const { sessionId } = await runtime.createSession("local");
    const client = new AbortController();
    const response = await globalThis.fetch(`${base}/v1/sessions/${sessionId}/events`, {
      headers: { origin: "https://evil.example" },
      signal: client.signal,
    });
    expect(response.headers.get("content-type")).toContain("text/event-stream");
    expect(response.headers.get("access-control-allow-origin")).toBeNull();
    client.abort();
  });

  it("stops the follower when the client goes away", async () => {
    const { runtime, app, subscriptions } = service();
    const base = await listen(app.fetch);
    const { sessionId } = await runtime.createSession("local");
    const before = subscriptions();
    const client = new AbortController();
    const response = await globalThis.fetch(`${base}/v1/sessions/${sessionId}/events`, {
      signal: client.signal,
    });
    const reader = response.body!.getReader();
    await reader.read(); // ": connected": the follower is listening
    await expect.poll(subscriptions).toBeGreaterThan(before);
    client.abort();
    // without the response's close stopping it, the follower would stay until its next heartbeat (15 s)
    await expect.poll(subscriptions, { timeout: 3000 }).toBe(before);
  });
});
