import { request as httpRequest, type ServerResponse } from "node:http";
import { connect } from "node:net";
import { afterEach, describe, expect, it, vi } from "vitest";
import { memoryBackend } from "../../src/app/server/backend/memory-backend.js";
import type { ServiceBackend } from "../../src/app/server/backend/types.js";
import { sendBodiesDirectly } from "../../src/app/server/http/direct-body.js";
import { sseResponse } from "../../src/app/server/http/sse.js";
import { FollowClock } from "../../src/app/server/runtime/follow-clock.js";
import {
  Follower,
  type FollowItem,
  type FollowSink,
  type StopSignal,
} from "../../src/app/server/runtime/follower.js";
import { SessionFeeds } from "../../src/app/server/runtime/session-feed.js";
import { type AgentEvent, createEvent } from "../../src/event/index.js";
import { type LoopbackServer, serveOnLoopback } from "./loopback-server.js";

const servers: LoopbackServer[] = [];
afterEach(async () => {
  for (const server of servers.splice(0)) await server.close();
});

const delta = (i: number): AgentEvent =>
  createEvent("TEXT_BLOCK_DELTA", { replyId: "r1", blockId: "b1", delta: `d${i}` });

/** Appends `count` deltas and tells followers with the logged events, as a run's EventQueue does. */
async function append(backend: ServiceBackend, from: number, count: number) {
  const events = await backend.events.append(
    "s",
    Array.from({ length: count }, (_, k) => delta(from + k)),
  );
  await backend.bus.publish({ sessionId: "s", kind: "events", events });
}

/** A sink that takes `room` items, then asks the follower to wait until `resume`. */
class RecordingSink implements FollowSink {
  readonly items: FollowItem[] = [];
  ends: unknown[] = [];
  room: number;

  constructor(room = Number.POSITIVE_INFINITY) {
    this.room = room;
  }

  push(item: FollowItem): boolean {
    this.items.push(item);
    this.room -= 1;
    return this.room > 0;
  }

  end(error?: unknown): void {
    this.ends.push(error);
  }

  seqs(): number[] {
    return this.items.flatMap((item) => (item.kind === "event" ? [item.seq] : []));
  }
}

function setup(heartbeatMs = 60_000, maxEventsPerSession?: number) {
  const backend = memoryBackend(maxEventsPerSession ? { maxEventsPerSession } : {});
  const feeds = new SessionFeeds(backend);
  const clock = new FollowClock(10);
  let finish!: () => void;
  const until = new Promise<void>((resolve) => {
    finish = resolve;
  });
  const follower = (after = 0) =>
    new Follower(backend, "s", { after, until, heartbeatMs, feeds, clock, pollMs: Number.POSITIVE_INFINITY });
  return { backend, feeds, clock, follower, finish };
}

describe("Follower (callback-driven)", () => {
  it("pauses when the sink is full and resumes where it stopped: every event once, in order", async () => {
    const { backend, follower, finish } = setup();
    await append(backend, 1, 5);
    const sink = new RecordingSink(2);
    const f = follower();
    f.start(sink);
    await vi.waitFor(() => expect(sink.seqs()).toEqual([1, 2]));
    await append(backend, 6, 3); // appended while paused: not pushed until the sink makes room
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(sink.seqs()).toEqual([1, 2]);
    sink.room = 3;
    f.resume();
    expect(sink.seqs()).toEqual([1, 2, 3, 4, 5]);
    sink.room = Number.POSITIVE_INFINITY;
    f.resume();
    await vi.waitFor(() => expect(sink.seqs()).toEqual([1, 2, 3, 4, 5, 6, 7, 8]));
    finish();
    await vi.waitFor(() => expect(sink.ends).toEqual([undefined]));
  });

  it("delivers live appends from the bus without reading the log, and ends once `until` resolves", async () => {
    const { backend, follower, finish, feeds, clock } = setup();
    const read = vi.spyOn(backend.events, "read");
    const sink = new RecordingSink();
    follower().start(sink);
    await vi.waitFor(() => expect(clock.size).toBe(1)); // read the empty log once, then sleeps
    const readsBefore = read.mock.calls.length;
    for (let i = 1; i <= 4; i++) await append(backend, i, 1);
    expect(sink.seqs()).toEqual([1, 2, 3, 4]);
    expect(read.mock.calls.length).toBe(readsBefore);
    finish();
    await vi.waitFor(() => expect(sink.ends).toEqual([undefined]));
    expect(feeds.size).toBe(0);
    expect(clock.size).toBe(0);
  });

  it("ends right after a run's end events told with runEnded, in the same delivery, without waiting for `until`", async () => {
    const { backend, follower, clock } = setup(); // `until` never resolves here
    const sink = new RecordingSink();
    follower().start(sink);
    await vi.waitFor(() => expect(clock.size).toBe(1));
    await append(backend, 1, 2);
    const end = await backend.events.append("s", [
      delta(3),
      createEvent("REPLY_END", { replyId: "r1", finishedReason: "completed" }),
    ]);
    expect(sink.ends).toEqual([]);
    await backend.bus.publish({ sessionId: "s", kind: "events", events: end, runEnded: true });
    // synchronously: the end events delivered, then the sink ended
    expect(sink.seqs()).toEqual([1, 2, 3, 4]);
    expect(sink.ends).toEqual([undefined]);
    expect(clock.size).toBe(0);
  });

  it("a follower that does not end with a run goes on after runEnded", async () => {
    const backend = memoryBackend();
    const feeds = new SessionFeeds(backend);
    const clock = new FollowClock(10);
    const sink = new RecordingSink();
    new Follower(backend, "s", {
      after: 0,
      heartbeatMs: 60_000,
      feeds,
      clock,
      pollMs: Number.POSITIVE_INFINITY,
    }).start(sink);
    await vi.waitFor(() => expect(clock.size).toBe(1));
    const end = await backend.events.append("s", [
      createEvent("REPLY_END", { replyId: "r1", finishedReason: "completed" }),
    ]);
    await backend.bus.publish({ sessionId: "s", kind: "events", events: end, runEnded: true });
    await append(backend, 2, 1); // the session's next run
    expect(sink.seqs()).toEqual([1, 2]);
    expect(sink.ends).toEqual([]);
    expect(clock.size).toBe(1);
  });

  it("stop ends the sink once and leaves the feed and the clock; nothing is pushed after it", async () => {
    const { backend, follower, feeds, clock } = setup();
    const sink = new RecordingSink();
    const f = follower();
    f.start(sink);
    await vi.waitFor(() => expect(clock.size).toBe(1));
    f.stop();
    f.stop();
    expect(sink.ends).toEqual([undefined]);
    expect([feeds.size, clock.size]).toEqual([0, 0]);
    await append(backend, 1, 2);
    expect(sink.items).toEqual([]);
  });

  it("a follower stopped from inside push delivers nothing more", async () => {
    const { backend, follower } = setup();
    await append(backend, 1, 5);
    const f = follower();
    const items: FollowItem[] = [];
    const ends: unknown[] = [];
    f.start({
      push: (item) => {
        items.push(item);
        if (items.length === 2) f.stop();
        return true;
      },
      end: (error) => ends.push(error),
    });
    await vi.waitFor(() => expect(ends).toEqual([undefined]));
    expect(items.map((item) => (item.kind === "event" ? item.seq : item.kind))).toEqual([1, 2]);
  });

  it("a failed read of the log ends the sink with the error", async () => {
    const { backend, follower } = setup();
    const failure = new Error("the log is gone");
    vi.spyOn(backend.events, "read").mockRejectedValue(failure);
    const sink = new RecordingSink();
    follower().start(sink);
    await vi.waitFor(() => expect(sink.ends).toEqual([failure]));
  });

  it("a gap comes before the first event after trimmed ones; a keep-alive after a quiet heartbeat", async () => {
    const { backend, follower, finish } = setup(30, 2);
    await append(backend, 1, 4); // the log keeps the newest two
    const sink = new RecordingSink();
    follower().start(sink);
    await vi.waitFor(() => expect(sink.items.some((item) => item.kind === "heartbeat")).toBe(true));
    expect(sink.items.slice(0, 3)).toMatchObject([
      { kind: "gap", firstSeq: 3 },
      { kind: "event", seq: 3 },
      { kind: "event", seq: 4 },
    ]);
    finish();
    await vi.waitFor(() => expect(sink.ends).toEqual([undefined]));
  });

  it("starts once; an already aborted signal ends it at once", () => {
    const { backend } = setup();
    const controller = new AbortController();
    controller.abort();
    const f = new Follower(backend, "s", { after: 0, heartbeatMs: 1000, signal: controller.signal });
    const sink = new RecordingSink();
    f.start(sink);
    expect(sink.ends).toEqual([undefined]);
    expect(() => f.start(new RecordingSink())).toThrow(/already started/);
  });
});

describe("SSE from a Follower, written straight to the socket", () => {
  it("waits for the socket to drain when a client stops reading, then sends every frame in order", async () => {
    const backend = memoryBackend();
    const big = "x".repeat(4000);
    const count = 2000; // ~8 MB: far beyond what the socket buffers take
    await backend.events.append(
      "s",
      Array.from({ length: count }, (_, i) =>
        createEvent("TEXT_BLOCK_DELTA", { replyId: "r1", blockId: "b1", delta: `${i} ${big}` }),
      ),
    );
    const resume = vi.spyOn(Follower.prototype, "resume");
    const server = await serveOnLoopback(
      sendBodiesDirectly(() =>
        sseResponse(
          async (signal) =>
            new Follower(backend, "s", { after: 0, signal, heartbeatMs: 60_000, until: Promise.resolve() }),
        ),
      ),
    );
    servers.push(server);
    const ids = await new Promise<number[]>((resolve, reject) => {
      httpRequest(`${server.base}/`, (response) => {
        response.pause(); // the client stalls: the server's writes fill the socket
        let text = "";
        response.setEncoding("utf8");
        response.on("data", (chunk: string) => {
          text += chunk;
        });
        response.on("end", () => resolve([...text.matchAll(/^id: (\d+)$/gm)].map((m) => Number(m[1]))));
        response.on("error", reject);
        setTimeout(() => response.resume(), 200);
      })
        .on("error", reject)
        .end();
    });
    expect(ids).toEqual(Array.from({ length: count }, (_, i) => i + 1));
    expect(resume).toHaveBeenCalled(); // the follower waited for "drain" at least once
    resume.mockRestore();
  });

  /** A raw HTTP client on `base`: every chunk the socket reads, as text. */
  async function rawChunks(
    base: string,
  ): Promise<{ chunks: string[]; received: (text: string) => Promise<void> }> {
    const url = new URL(base);
    const socket = connect(Number(url.port), url.hostname);
    const chunks: string[] = [];
    socket.setEncoding("utf8");
    socket.on("data", (chunk: string) => chunks.push(chunk));
    socket.write(`GET / HTTP/1.1\r\nhost: ${url.host}\r\n\r\n`);
    const received = (text: string) => vi.waitFor(() => expect(chunks.join("")).toContain(text));
    return { chunks, received };
  }

  /** Serves `sseResponse(open)` straight to the socket; `responses` gets Node's response of each request. */
  async function serveDirect(open: (signal: StopSignal) => Promise<Follower>) {
    const responses: ServerResponse[] = [];
    const direct = sendBodiesDirectly((_request: Request, _env?: unknown) => sseResponse(open));
    const server = await serveOnLoopback((request, env) => {
      responses.push((env as { outgoing: ServerResponse }).outgoing);
      return direct(request, env);
    });
    servers.push(server);
    return { server, responses };
  }

  /**
   * The response's socket holds what was written to it (the sink corked it), seen a turn of the event
   * loop later: Node corks a socket for each write itself, but only until the next tick.
   */
  async function holding(out: ServerResponse | undefined): Promise<boolean> {
    await new Promise((resolve) => setImmediate(resolve));
    return (out?.socket?.writableCorked ?? 0) > 0;
  }

  it("writes the frames of one batch as one chunk of the response", async () => {
    const { backend, finish } = setup();
    const server = await serveOnLoopback(
      sendBodiesDirectly(() =>
        sseResponse(async (signal) => new Follower(backend, "s", { after: 0, signal, heartbeatMs: 60_000 })),
      ),
    );
    servers.push(server);
    const client = await rawChunks(server.base);
    await client.received(": connected");
    await append(backend, 1, 3); // one append, one batch: three frames
    await client.received("id: 3\n");
    const text = client.chunks.join("");
    const frames = text.slice(text.indexOf("id: 1\n"), text.indexOf("id: 3\n"));
    expect(frames).toContain("id: 2\n");
    expect(frames).not.toContain("\r\n"); // no chunk boundary between them: one write
    finish();
  });

  it("holds a run's last frame until the stream ends, then sends both in one write", async () => {
    const { backend, finish } = setup();
    let runDone!: () => void;
    const until = new Promise<void>((resolve) => {
      runDone = resolve;
    });
    const { server, responses } = await serveDirect(
      async (signal) => new Follower(backend, "s", { after: 0, signal, heartbeatMs: 60_000, until }),
    );
    const client = await rawChunks(server.base);
    await append(backend, 1, 1);
    await client.received("id: 1\n");
    const [end] = await backend.events.append("s", [
      createEvent("REPLY_END", { replyId: "r1", finishedReason: "completed" }),
    ]);
    await backend.bus.publish({ sessionId: "s", kind: "events", events: [end!] });
    await vi.waitFor(async () => expect(await holding(responses[0])).toBe(true));
    expect(client.chunks.join("")).not.toContain("REPLY_END"); // held while the run frees the session
    runDone();
    await client.received("0\r\n\r\n");
    const last = client.chunks.find((chunk) => chunk.includes("event: REPLY_END"));
    expect(last).toMatch(/event: REPLY_END\n[\s\S]*\r\n0\r\n\r\n$/); // the frame and the end in one read
    finish();
  });

  it("a run's end events told with runEnded go out with the stream's end at once: one write, no hold timer", async () => {
    const { backend, finish } = setup();
    const never = new Promise<void>(() => {}); // the run's done has not settled
    const server = await serveOnLoopback(
      sendBodiesDirectly(() =>
        sseResponse(
          async (signal) =>
            new Follower(backend, "s", { after: 0, signal, heartbeatMs: 60_000, until: never }),
        ),
      ),
    );
    servers.push(server);
    const client = await rawChunks(server.base);
    await append(backend, 1, 1);
    await client.received("id: 1\n");
    const timers = vi.spyOn(globalThis, "setTimeout");
    const ended = await backend.events.append("s", [
      delta(2),
      createEvent("REPLY_END", { replyId: "r1", finishedReason: "completed" }),
    ]);
    await backend.bus.publish({ sessionId: "s", kind: "events", events: ended, runEnded: true });
    const holds = timers.mock.calls.filter(([, ms]) => ms === 50).length;
    timers.mockRestore();
    expect(holds).toBe(0);
    await client.received("0\r\n\r\n");
    const last = client.chunks.find((chunk) => chunk.includes("event: REPLY_END"));
    expect(last).toMatch(/id: 2\nevent: TEXT_BLOCK_DELTA[\s\S]*event: REPLY_END\n[\s\S]*\r\n0\r\n\r\n$/);
    finish();
  });

  it("sends a held last frame anyway if the stream does not end soon; a stream that does not end with a run holds nothing", async () => {
    const { backend } = setup();
    const never = new Promise<void>(() => {});
    let withRun = true;
    const { server, responses } = await serveDirect(
      async (signal) =>
        new Follower(backend, "s", {
          after: 0,
          signal,
          heartbeatMs: 60_000,
          ...(withRun ? { until: never } : {}),
        }),
    );
    const held = await rawChunks(server.base);
    await held.received(": connected");
    withRun = false;
    const open = await rawChunks(server.base);
    await open.received(": connected");
    const [end] = await backend.events.append("s", [
      createEvent("REPLY_END", { replyId: "r1", finishedReason: "completed" }),
    ]);
    await backend.bus.publish({ sessionId: "s", kind: "events", events: [end!] });
    // the stream that ends with a run holds its last frame; the other one sent it at once
    await vi.waitFor(async () => expect(await holding(responses[0])).toBe(true));
    expect(await holding(responses[1])).toBe(false);
    await held.received("event: REPLY_END");
    await open.received("event: REPLY_END");
    expect(await holding(responses[0])).toBe(false);
  });

  it("still serves an async generator of items (sseResponse's source before Follower), and stops it when the client leaves", async () => {
    let returned = false;
    async function* items(signal: StopSignal): AsyncGenerator<FollowItem> {
      try {
        for (let seq = 1; seq <= 3; seq++) yield { kind: "event", seq, event: delta(seq) };
        // then waits for more until the stream's signal stops it
        await new Promise<void>((resolve) => signal.addEventListener("abort", resolve));
      } finally {
        returned = true;
      }
    }
    const server = await serveOnLoopback(
      sendBodiesDirectly(() => sseResponse(async (signal) => items(signal))),
    );
    servers.push(server);
    const controller = new AbortController();
    const response = await fetch(`${server.base}/`, { signal: controller.signal });
    const reader = response.body!.pipeThrough(new TextDecoderStream()).getReader();
    let text = "";
    while ((text.match(/^id: /gm) ?? []).length < 3) {
      const { done, value } = await reader.read();
      if (done) break;
      text += value;
    }
    expect([...text.matchAll(/^id: (\d+)$/gm)].map((m) => Number(m[1]))).toEqual([1, 2, 3]);
    controller.abort();
    await vi.waitFor(() => expect(returned).toBe(true));
  });
});
