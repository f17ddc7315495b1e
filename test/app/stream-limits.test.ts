import { EventEmitter, once } from "node:events";
import { connect, type Socket } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { aguiRoutes } from "../../src/app/agui/index.js";
import { createApp } from "../../src/app/server/app.js";
import { memoryBackend } from "../../src/app/server/backend/memory-backend.js";
import { parseServiceConfig } from "../../src/app/server/config/service-config.js";
import { addQueued } from "../../src/app/server/http/send-queues.js";
import { ServiceRuntime } from "../../src/app/server/runtime/service-runtime.js";
import type { StreamLimits } from "../../src/app/server/runtime/stream-slots.js";
import { startServer } from "../../src/app/server/start-server.js";
import { createEvent } from "../../src/event/index.js";
import { conversationModel } from "./fixtures/agents.js";
import { type Frame, json, parseFrames, readSse, sleep } from "./helpers.js";
import { type LoopbackServer, serveOnLoopback } from "./loopback-server.js";

const cleanups: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup().catch(() => {});
});

const TOKENS = { "t-alice": "alice", "t-bob": "bob" };

function setup(options: { streams?: StreamLimits; heartbeatMs?: number } = {}) {
  const backend = memoryBackend();
  const runtime = new ServiceRuntime({
    backend,
    agents: [{ name: "a", model: conversationModel() }],
    heartbeatMs: options.heartbeatMs ?? 15_000,
    ...(options.streams ? { streams: options.streams } : {}),
  });
  cleanups.push(() => runtime.close());
  const app = createApp(runtime, { tokens: new Map(Object.entries(TOKENS)), mounts: [aguiRoutes(runtime)] });
  const request = (path: string, token: string, init: RequestInit = {}) =>
    app.request(path, {
      ...init,
      headers: { authorization: `Bearer ${token}`, "content-type": "application/json", ...init.headers },
    });
  const session = async (token: string) =>
    ((await json(request("/v1/sessions", token, { method: "POST", body: "{}" }))) as { sessionId: string })
      .sessionId;
  const events = (id: string, token: string, headers: Record<string, string> = {}) =>
    request(`/v1/sessions/${id}/events`, token, { headers: { accept: "text/event-stream", ...headers } });
  return { backend, runtime, app, request, session, events };
}

describe("open event streams per user", () => {
  it("the 65th stream of one user gets 429 with Retry-After, while another user still gets one", async () => {
    const { runtime, session, events } = setup();
    const id = await session("t-alice");
    const open: Response[] = [];
    for (let i = 0; i < 64; i++) {
      const response = await events(id, "t-alice");
      expect(response.status).toBe(200);
      open.push(response);
    }
    expect(runtime.streams.openBy("alice")).toBe(64);
    const refused = await events(id, "t-alice");
    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get("retry-after"))).toBeGreaterThan(0);
    const { error } = await json(refused);
    expect(error.type).toBe("rate_limit");
    expect(error.message).toContain("64 event streams");
    expect(error.message).toContain("maxStreamsPerUser");

    const bobs = await events(await session("t-bob"), "t-bob");
    expect(bobs.status).toBe(200);
    await bobs.body!.cancel();

    // a stream that ends gives its slot back
    await open.pop()!.body!.cancel();
    expect(runtime.streams.openBy("alice")).toBe(63);
    const again = await events(id, "t-alice");
    expect(again.status).toBe(200);
    for (const response of [...open, again]) await response.body!.cancel();
    expect(runtime.streams.openBy("alice")).toBe(0);
  });

  it("a run-starting request at the limit gets 429 and starts nothing; a 202 one takes no slot", async () => {
    const { backend, runtime, request, session, events } = setup({ streams: { maxStreamsPerUser: 1 } });
    const id = await session("t-alice");
    const held = await events(id, "t-alice");
    const refused = await request(`/v1/sessions/${id}/replies`, "t-alice", {
      method: "POST",
      body: '{"text":"hi"}',
      headers: { accept: "text/event-stream" },
    });
    expect(refused.status).toBe(429);
    expect(refused.headers.get("retry-after")).not.toBeNull();
    expect(await backend.events.lastSeq(id)).toBe(0);
    expect((await runtime.status("alice", id)).running).toBe(false);

    const agui = await request("/v1/agui", "t-alice", {
      method: "POST",
      body: JSON.stringify({
        threadId: id,
        runId: "r1",
        messages: [{ id: "u1", role: "user", content: "hi" }],
      }),
    });
    expect(agui.status).toBe(429);
    expect(agui.headers.get("retry-after")).not.toBeNull();
    expect(await backend.events.lastSeq(id)).toBe(0);

    const accepted = await request(`/v1/sessions/${id}/replies`, "t-alice", {
      method: "POST",
      body: '{"text":"hi"}',
    });
    expect(accepted.status).toBe(202);
    expect(runtime.streams.openBy("alice")).toBe(1);
    await held.body!.cancel();
  });

  it("a reply stream that ends by itself, and an AG-UI stream, give their slots back", async () => {
    const { runtime, request, session } = setup({ streams: { maxStreamsPerUser: 1 } });
    const id = await session("t-alice");
    const reply = await request(`/v1/sessions/${id}/replies`, "t-alice", {
      method: "POST",
      body: '{"text":"hi"}',
      headers: { accept: "text/event-stream" },
    });
    expect(reply.status).toBe(200);
    await readSse(reply); // to the end: the reply pauses on a confirmation
    expect(runtime.streams.openBy("alice")).toBe(0);
    const other = await session("t-alice");
    const agui = await request("/v1/agui", "t-alice", {
      method: "POST",
      body: JSON.stringify({
        threadId: other,
        runId: "r1",
        messages: [{ id: "u1", role: "user", content: "hi" }],
      }),
    });
    expect(agui.status).toBe(200);
    await agui.text();
    expect(runtime.streams.openBy("alice")).toBe(0);
  });

  it("refuses limits that are not positive integers", () => {
    expect(() => setup({ streams: { maxStreamsPerUser: 0 } })).toThrow(/maxStreamsPerUser/);
    expect(() => setup({ streams: { writeTimeoutMs: -1 } })).toThrow(/writeTimeoutMs/);
    // a longer timer would fire at once
    expect(() => setup({ streams: { writeTimeoutMs: 2 ** 31 } })).toThrow(/writeTimeoutMs/);
  });
});

/** Raw HTTP/1.0 (no chunked framing) GET of an event stream on a socket that never reads. */
async function deadReader(server: LoopbackServer, path: string, token: string): Promise<Socket> {
  const socket = connect(server.port, "127.0.0.1");
  await once(socket, "connect");
  socket.pause(); // never reads: the kernel's buffers fill, then the server's
  socket.on("error", () => {}); // the server resets it
  socket.write(
    `GET ${path} HTTP/1.0\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${token}\r\nAccept: text/event-stream\r\n\r\n`,
  );
  return socket;
}

/**
 * Everything left on `socket`, read now until the server's end. The server resets the connection:
 * Node 22+ reports that as an ECONNRESET error after the buffered data, Node 20 as a plain end, so
 * this waits for "close" (which `once` would reject on the error) and takes either.
 */
async function drain(socket: Socket): Promise<string> {
  let text = "";
  socket.setEncoding("utf8");
  socket.on("data", (chunk: string) => {
    text += chunk;
  });
  const closed = new Promise((resolve) => socket.once("close", resolve));
  socket.resume();
  await closed;
  return text;
}

/**
 * Reads an SSE response until the frame with id `lastId` has come whole, then cancels; the frames
 * that carry ids. (Reads as fast as the socket gives: a slow reader could be dropped itself.)
 */
async function framesUntil(response: Response, lastId: number): Promise<Frame[]> {
  const reader = response.body!.getReader();
  const decoder = new TextDecoder();
  const chunks: string[] = [];
  const marker = `id: ${lastId}\n`;
  let tail = "";
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    const text = decoder.decode(value, { stream: true });
    chunks.push(text);
    tail = (tail + text).slice(-(BIG.length + 200));
    const at = tail.indexOf(marker);
    if (at >= 0 && tail.indexOf("\n\n", at) >= 0) break;
  }
  await reader.cancel();
  const raw = chunks.join("");
  return parseFrames(raw.slice(0, raw.lastIndexOf("\n\n") + 2)).filter((f) => f.id !== undefined);
}

const EVENTS = 1500;
const BIG = "x".repeat(8 * 1024);

describe("a reader that never reads", () => {
  it("is dropped after the write timeout, and a reconnect with Last-Event-ID gets everything after it once", async () => {
    const { backend, runtime, app, session } = setup({
      streams: { writeTimeoutMs: 1000, maxUnsentBytes: 16 * 1024 },
    });
    const server = await serveOnLoopback(app.fetch);
    cleanups.push(() => server.close());
    const id = await session("t-alice");
    // 12 MiB of events: far more than the kernel's socket buffers hold
    const logged = await backend.events.append(
      id,
      Array.from({ length: EVENTS }, (_, i) =>
        createEvent("TEXT_BLOCK_DELTA", { replyId: "r1", blockId: "b1", delta: `${i} ${BIG}` }),
      ),
    );
    expect(logged.at(-1)!.seq).toBe(EVENTS);

    const socket = await deadReader(server, `/v1/sessions/${id}/events`, "t-alice");
    cleanups.push(async () => socket.destroy());
    for (let i = 0; i < 100 && runtime.streams.openBy("alice") === 0; i++) await sleep(20);
    expect(runtime.streams.openBy("alice")).toBe(1);
    // dropped: its slot is free again (it would stay taken for as long as the socket is open)
    for (let i = 0; i < 250 && runtime.streams.openBy("alice") > 0; i++) await sleep(20);
    expect(runtime.streams.openBy("alice")).toBe(0);

    // What reached the client before the drop: whole frames from 1 up to some id, then a cut.
    const raw = await drain(socket);
    const body = raw.slice(raw.indexOf("\r\n\r\n") + 4);
    const received = parseFrames(body.slice(0, body.lastIndexOf("\n\n") + 2)).filter(
      (f) => f.id !== undefined,
    );
    const last = received.at(-1)!.id!;
    expect(received.map((f) => f.id)).toEqual(Array.from({ length: last }, (_, i) => i + 1));
    expect(last).toBeLessThan(EVENTS);

    const resumed = await fetch(`${server.base}/v1/sessions/${id}/events`, {
      headers: {
        authorization: "Bearer t-alice",
        accept: "text/event-stream",
        "last-event-id": String(last),
      },
    });
    const frames = await framesUntil(resumed, EVENTS);
    const all = [...received, ...frames].map((f) => f.id);
    expect(all).toEqual(Array.from({ length: EVENTS }, (_, i) => i + 1));
    expect(frames.every((f) => f.data?.type === "TEXT_BLOCK_DELTA")).toBe(true);
  }, 20_000);

  it.skipIf(process.platform !== "linux")(
    "is dropped when what it did not read all fits in the kernel's buffers (Linux: the socket's send queue)",
    async () => {
      const { backend, runtime, app, session } = setup({ streams: { writeTimeoutMs: 300 } });
      const server = await serveOnLoopback(app.fetch);
      cleanups.push(() => server.close());
      const id = await session("t-alice");
      // 1 MiB: more than a receiver that never reads takes in, less than the sender's kernel holds
      const count = 128;
      await backend.events.append(
        id,
        Array.from({ length: count }, (_, i) =>
          createEvent("TEXT_BLOCK_DELTA", { replyId: "r1", blockId: "b1", delta: `${i} ${BIG}` }),
        ),
      );
      const socket = await deadReader(server, `/v1/sessions/${id}/events`, "t-alice");
      cleanups.push(async () => socket.destroy());
      for (let i = 0; i < 100 && runtime.streams.openBy("alice") === 0; i++) await sleep(20);
      expect(runtime.streams.openBy("alice")).toBe(1);
      for (let i = 0; i < 250 && runtime.streams.openBy("alice") > 0; i++) await sleep(20);
      expect(runtime.streams.openBy("alice")).toBe(0);
      const raw = await drain(socket);
      const body = raw.slice(raw.indexOf("\r\n\r\n") + 4);
      const received = parseFrames(body.slice(0, body.lastIndexOf("\n\n") + 2)).filter(
        (f) => f.id !== undefined,
      );
      const last = received.at(-1)?.id ?? 0;
      const resumed = await fetch(`${server.base}/v1/sessions/${id}/events`, {
        headers: {
          authorization: "Bearer t-alice",
          accept: "text/event-stream",
          "last-event-id": String(last),
        },
      });
      const frames = await framesUntil(resumed, count);
      expect([...received, ...frames].map((f) => f.id)).toEqual(
        Array.from({ length: count }, (_, i) => i + 1),
      );
    },
    20_000,
  );

  it("a reader that reads is not dropped, however long the stream", async () => {
    const { backend, runtime, app, session } = setup({
      streams: { writeTimeoutMs: 1000, maxUnsentBytes: 16 * 1024 },
    });
    const server = await serveOnLoopback(app.fetch);
    cleanups.push(() => server.close());
    const id = await session("t-alice");
    await backend.events.append(
      id,
      Array.from({ length: 300 }, (_, i) =>
        createEvent("TEXT_BLOCK_DELTA", { replyId: "r1", blockId: "b1", delta: `${i} ${BIG}` }),
      ),
    );
    const response = await fetch(`${server.base}/v1/sessions/${id}/events`, {
      headers: { authorization: "Bearer t-alice", accept: "text/event-stream" },
    });
    const frames = await framesUntil(response, 300);
    expect(frames.map((f) => f.id)).toEqual(Array.from({ length: 300 }, (_, i) => i + 1));
    expect(runtime.streams.openBy("alice")).toBeLessThanOrEqual(1);
  }, 20_000);
});

describe("heartbeats", () => {
  it("an idle stream gets `: keep-alive` comments every heartbeat, on Node's socket path too", async () => {
    const { app, session } = setup({ heartbeatMs: 40 });
    const server = await serveOnLoopback(app.fetch);
    cleanups.push(() => server.close());
    const id = await session("t-alice");
    const response = await fetch(`${server.base}/v1/sessions/${id}/events`, {
      headers: { authorization: "Bearer t-alice", accept: "text/event-stream" },
    });
    const { comments } = await readSse(response, () => false, 400);
    expect(comments[0]).toBe("connected");
    expect(comments.filter((c) => c === "keep-alive").length).toBeGreaterThanOrEqual(2);
  });
});

/**
 * A stand-in for Node's ServerResponse that never hands anything to a client: what is written stays
 * "in the process" (writableLength) until the test calls `drain()`. Full at 16 KiB, as Node's is.
 */
class StuckResponse extends EventEmitter {
  constructor(private readonly highWaterMark = 16 * 1024) {
    super();
  }
  readonly chunks: string[] = [];
  finished = false;
  writableLength = 0;
  writableNeedDrain = false;
  destroyed = false;
  headersSent = false;
  reset = false;
  readonly socket = {
    destroyed: false,
    resetAndDestroy: () => {
      this.reset = true;
      this.destroyed = true;
      this.emit("close");
    },
  };
  writeHead() {
    this.headersSent = true;
    return this;
  }
  write(chunk: string) {
    this.chunks.push(chunk);
    this.writableLength += chunk.length;
    if (this.writableLength >= this.highWaterMark) this.writableNeedDrain = true;
    return !this.writableNeedDrain;
  }
  cork() {}
  uncork() {}
  /** As Node's: an ended response no longer says it needs a drain, whatever still waits. */
  end() {
    this.finished = true;
    this.writableNeedDrain = false;
  }
  destroy() {
    this.destroyed = true;
    this.emit("close");
  }
  drain() {
    this.writableLength = 0;
    this.writableNeedDrain = false;
    this.emit("drain");
  }
  get written() {
    return this.chunks.reduce((sum, chunk) => sum + chunk.length, 0);
  }
}

describe("bytes waiting for a client", () => {
  it("a stream puts at most maxUnsentBytes (and one frame) into a socket that does not drain, then waits, then is reset", async () => {
    const maxUnsentBytes = 20 * 1024;
    const { backend, runtime, app, session } = setup({ streams: { maxUnsentBytes, writeTimeoutMs: 200 } });
    const id = await session("t-alice");
    await backend.events.append(
      id,
      Array.from({ length: 100 }, (_, i) =>
        createEvent("TEXT_BLOCK_DELTA", { replyId: "r1", blockId: "b1", delta: `${i} ${BIG}` }),
      ),
    );
    const frame = 8 * 1024 + 200;
    const out = new StuckResponse();
    await app.fetch(
      new Request(`http://127.0.0.1/v1/sessions/${id}/events`, {
        headers: { authorization: "Bearer t-alice", accept: "text/event-stream" },
      }),
      { outgoing: out },
    );
    await sleep(50);
    expect(out.written).toBeGreaterThan(0);
    expect(out.written).toBeLessThanOrEqual(maxUnsentBytes + frame);
    const first = out.written;
    out.drain(); // the client took it: the stream goes on, as bounded
    await sleep(20);
    expect(out.written).toBeGreaterThan(first);
    expect(out.written - first).toBeLessThanOrEqual(maxUnsentBytes + frame);
    // and takes nothing more: reset after the write timeout, the slot given back
    for (let i = 0; i < 100 && !out.reset; i++) await sleep(20);
    expect(out.reset).toBe(true);
    expect(runtime.streams.openBy("alice")).toBe(0);
  });
});

describe("a reply stream that ends while its client takes nothing", () => {
  it("is reset after the write timeout all the same (its bytes still wait), and its slot given back", async () => {
    const { runtime, app, session } = setup({ streams: { writeTimeoutMs: 200 } });
    const id = await session("t-alice");
    const out = new StuckResponse(Number.POSITIVE_INFINITY); // takes every write, hands nothing on
    await app.fetch(
      new Request(`http://127.0.0.1/v1/sessions/${id}/replies`, {
        method: "POST",
        headers: {
          authorization: "Bearer t-alice",
          accept: "text/event-stream",
          "content-type": "application/json",
        },
        body: '{"text":"hi"}',
      }),
      { outgoing: out },
    );
    for (let i = 0; i < 100 && !out.finished; i++) await sleep(20);
    expect(out.finished).toBe(true); // the reply paused on its confirmation: the stream ended
    expect(out.writableLength).toBeGreaterThan(0);
    expect(runtime.streams.openBy("alice")).toBe(1);
    for (let i = 0; i < 100 && !out.reset; i++) await sleep(20);
    expect(out.reset).toBe(true);
    expect(runtime.streams.openBy("alice")).toBe(0);
  });
});

describe("the config file's stream settings", () => {
  it("reach the runtime, and a bad one is refused naming the field", async () => {
    const config = parseServiceConfig({
      agents: [{ name: "a", model: "scripted:x" }],
      server: { maxStreamsPerUser: 3, writeTimeoutMs: 4000, maxUnsentBytes: 65536 },
    });
    const server = await startServer({
      config: { ...config, agents: [{ name: "a", model: conversationModel() }] },
      store: "memory:",
      port: 0,
      tokensEnv: "",
      withoutOptionalRoutes: true,
      workspaces: false,
    });
    cleanups.push(() => server.close());
    const { streams } = server.runtime;
    expect([streams.maxStreamsPerUser, streams.writeTimeoutMs, streams.maxUnsentBytes]).toEqual([
      3, 4000, 65536,
    ]);
    expect(() =>
      parseServiceConfig({ agents: [{ name: "a", model: "scripted:x" }], server: { maxStreamsPerUser: 0 } }),
    ).toThrow(/server\.maxStreamsPerUser/);
  });
});

describe("send queues from /proc/net/tcp", () => {
  it("reads the queued bytes by inode, of IPv4 and IPv6 tables, skipping empty queues", () => {
    const tcp = [
      "  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode",
      "   0: 0100007F:075B 00000000:0000 0A 00000000:00000000 00:00000000 00000000   105        0 7221 1 0000000 100 0 0 10 0",
      "  12: 0100007F:1F90 0100007F:C350 01 0000AB00:00000000 01:00000014 00000000  1000        0 98765 1 0000000 20 4 30 10 -1",
    ].join("\n");
    const tcp6 = [
      "  sl  local_address                         remote_address                        st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode",
      "10000: 0000000000000000FFFF00000100007F:1F90 0000000000000000FFFF00000100007F:D431 01 00000010:00000000 00:00000000 00000000  1000        0 4242 1 0000000 20 4 30 10 -1",
    ].join("\n");
    const queues = new Map<number, number>();
    addQueued(tcp, queues);
    addQueued(tcp6, queues);
    expect([...queues]).toEqual([
      [98765, 0xab00],
      [4242, 16],
    ]);
    addQueued("", queues);
    addQueued("header only", queues);
    expect(queues.size).toBe(2);
  });
});
