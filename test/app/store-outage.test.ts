import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import { once } from "node:events";
import { createServer, type Server, type Socket, connect as tcpConnect } from "node:net";
import { afterAll, describe, expect, it } from "vitest";
import { createApp } from "../../src/app/server/app.js";
import { createBackend } from "../../src/app/server/backend/create-backend.js";
import { ServiceRuntime } from "../../src/app/server/runtime/service-runtime.js";
import { isStoreOutage } from "../../src/app/server/store-outage.js";
import { missingService, reportMissingService, runName } from "../support/services.js";
import { conversationModel } from "./fixtures/agents.js";
import { json, sleep } from "./helpers.js";

async function freePort(): Promise<number> {
  const server = createServer();
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  const { port } = server.address() as { port: number };
  server.close();
  await once(server, "close");
  return port;
}

/** The service on `store`, and what its onServerError heard. */
async function service(store: string) {
  const backend = await createBackend(store, { prefix: runName("outage") });
  const runtime = new ServiceRuntime({ backend, agents: [{ name: "a", model: conversationModel() }] });
  const heard: unknown[] = [];
  const app = createApp(runtime, { onServerError: (error) => heard.push(error) });
  const request = (path: string, init: RequestInit = {}) =>
    app.request(path, { ...init, headers: { "content-type": "application/json", ...init.headers } });
  return { runtime, request, heard };
}

/** Asserts a store-outage answer: 503 unavailable, Retry-After, and none of the driver's words. */
async function expectOutageAnswer(response: Response, driverWords: string[]) {
  expect(response.status).toBe(503);
  expect(Number(response.headers.get("retry-after"))).toBeGreaterThan(0);
  const text = await response.text();
  expect(JSON.parse(text).error.type).toBe("unavailable");
  for (const word of driverWords) expect(text.toLowerCase()).not.toContain(word.toLowerCase());
}

const DRIVER_WORDS = [
  "ECONNREFUSED",
  "connection is closed",
  "retries",
  "127.0.0.1",
  "redis",
  "terminated",
  "pg",
];

const hasRedisServer = spawnSync("redis-server", ["--version"]).status === 0;

describe("a Redis outage (a redis-server of the test's own, killed)", () => {
  if (!hasRedisServer) {
    reportMissingService("redis-server is not installed");
    return;
  }
  let redis: ChildProcess | undefined;
  afterAll(() => {
    redis?.kill("SIGKILL");
  });

  it("answers 503 unavailable with Retry-After and no driver text; the details go to onServerError", async () => {
    const port = await freePort();
    redis = spawn("redis-server", ["--port", String(port), "--save", "", "--appendonly", "no"], {
      stdio: "ignore",
    });
    for (let i = 0; i < 100 && (await missingService("redis", port)); i++) await sleep(50);
    const { runtime, request, heard } = await service(`redis://127.0.0.1:${port}`);
    try {
      const created = await request("/v1/sessions", { method: "POST", body: "{}" });
      expect(created.status).toBe(201);
      const { sessionId } = await json(created);
      expect((await request(`/v1/sessions/${sessionId}`)).status).toBe(200);

      redis.kill("SIGKILL");
      await once(redis, "exit");
      redis = undefined;

      await expectOutageAnswer(await request(`/v1/sessions/${sessionId}`), [...DRIVER_WORDS, String(port)]);
      await expectOutageAnswer(
        await request(`/v1/sessions/${sessionId}/replies`, { method: "POST", body: '{"text":"hi"}' }),
        [...DRIVER_WORDS, String(port)],
      );
      await expectOutageAnswer(await request("/v1/sessions", { method: "POST", body: "{}" }), DRIVER_WORDS);
      expect(heard.length).toBeGreaterThanOrEqual(3);
      expect(heard.every(isStoreOutage)).toBe(true);
    } finally {
      await runtime.close().catch(() => {});
    }
  }, 20_000);
});

/** A TCP proxy to `port`; `cut()` drops every connection and stops listening (the store "goes away"). */
async function proxyTo(port: number): Promise<{ port: number; cut(): Promise<void> }> {
  const sockets = new Set<Socket>();
  const server: Server = createServer((client) => {
    const upstream = tcpConnect(port, "127.0.0.1");
    for (const socket of [client, upstream]) {
      sockets.add(socket);
      socket.on("error", () => {});
      socket.on("close", () => sockets.delete(socket));
    }
    client.pipe(upstream).pipe(client);
  });
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  return {
    port: (server.address() as { port: number }).port,
    async cut() {
      for (const socket of sockets) socket.destroy();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

describe("a PostgreSQL outage (through a proxy the test cuts)", async () => {
  const missing = await missingService("PostgreSQL", 5432);
  if (missing) {
    reportMissingService(missing);
    return;
  }
  it("answers 503 unavailable with Retry-After and no driver text", async () => {
    const proxy = await proxyTo(5432);
    const { runtime, request, heard } = await service(`postgres://postgres@127.0.0.1:${proxy.port}/postgres`);
    try {
      const created = await request("/v1/sessions", { method: "POST", body: "{}" });
      expect(created.status).toBe(201);
      const { sessionId } = await json(created);
      await proxy.cut();
      await expectOutageAnswer(await request(`/v1/sessions/${sessionId}`), [
        ...DRIVER_WORDS,
        String(proxy.port),
      ]);
      await expectOutageAnswer(await request(`/v1/sessions/${sessionId}/status`), DRIVER_WORDS);
      expect(heard.every(isStoreOutage)).toBe(true);
    } finally {
      await runtime.close().catch(() => {});
    }
  }, 20_000);
});

describe("isStoreOutage", () => {
  const withCode = (code: string, message = "x") => Object.assign(new Error(message), { code });
  const named = (name: string) => Object.assign(new Error("x"), { name });

  it("recognises the drivers' connection errors by code or class", () => {
    for (const code of ["ECONNREFUSED", "ECONNRESET", "ETIMEDOUT", "EPIPE", "ENOTFOUND"])
      expect(isStoreOutage(withCode(code))).toBe(true);
    for (const code of ["57P01", "57P03", "08006", "08001", "53300"])
      expect(isStoreOutage(withCode(code))).toBe(true);
    for (const code of ["PROTOCOL_CONNECTION_LOST", "ER_CON_COUNT_ERROR"])
      expect(isStoreOutage(withCode(code))).toBe(true);
    for (const code of ["SQLITE_BUSY", "SQLITE_BUSY_SNAPSHOT", "SQLITE_LOCKED"])
      expect(isStoreOutage(withCode(code))).toBe(true);
    expect(isStoreOutage(named("MaxRetriesPerRequestError"))).toBe(true);
    expect(isStoreOutage(new Error("Connection is closed."))).toBe(true);
    expect(isStoreOutage(new Error("Connection terminated unexpectedly"))).toBe(true);
  });

  it("looks through causes and AggregateErrors", () => {
    expect(isStoreOutage(new Error("the backend failed", { cause: withCode("ECONNREFUSED") }))).toBe(true);
    expect(isStoreOutage(new AggregateError([withCode("ECONNREFUSED")], "connect failed"))).toBe(true);
    const loop: { cause?: unknown } = new Error("loop");
    loop.cause = loop;
    expect(isStoreOutage(loop)).toBe(false);
  });

  it("leaves bugs and bad data alone (they stay 500)", () => {
    expect(isStoreOutage(new TypeError("x is undefined"))).toBe(false);
    expect(isStoreOutage(withCode("42601", "syntax error at or near"))).toBe(false); // pg syntax error
    expect(isStoreOutage(withCode("23505"))).toBe(false); // pg unique violation
    expect(isStoreOutage(withCode("SQLITE_CONSTRAINT_PRIMARYKEY"))).toBe(false);
    expect(isStoreOutage(withCode("ER_DUP_ENTRY"))).toBe(false);
    expect(isStoreOutage(new Error("a message mentioning Connection is closed. in passing"))).toBe(false);
    expect(isStoreOutage("ECONNREFUSED")).toBe(false);
    expect(isStoreOutage(undefined)).toBe(false);
  });
});
