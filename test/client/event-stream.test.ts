import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, expect, it } from "vitest";
import { EventStream, EventsLostError, ServiceError } from "../../src/client/index.js";
import { createEvent } from "../../src/event/index.js";

const servers: Server[] = [];
const cleanupSockets: Array<() => void> = [];
afterEach(async () => {
  for (const close of cleanupSockets.splice(0)) close();
  for (const server of servers.splice(0)) await new Promise<void>((resolve) => server.close(() => resolve()));
});

/** An HTTP server whose answer to the n-th connection (0-based) is `answer(n, lastEventId)`. */
async function sseServer(
  answer: (n: number, lastEventId: string) => { status?: number; body: string; hold?: boolean },
) {
  let n = 0;
  const seen: string[] = [];
  const server = createServer((req, res) => {
    const last = String(req.headers["last-event-id"] ?? "");
    seen.push(last);
    const { status = 200, body, hold } = answer(n++, last);
    res.writeHead(status, { "content-type": status === 200 ? "text/event-stream" : "application/json" });
    if (hold) res.write(body);
    else res.end(body);
  });
  servers.push(server);
  cleanupSockets.push(() => server.closeAllConnections());
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
  const connect = (after: number, signal: AbortSignal) =>
    fetch(url, { headers: { "last-event-id": String(after) }, signal });
  return { connect, seen };
}

const frame = (id: number, text: string) => {
  const event = createEvent("TEXT_BLOCK_DELTA", { replyId: "r1", blockId: "b1", delta: text });
  return `id: ${id}\nevent: ${event.type}\ndata: ${JSON.stringify(event)}\n\n`;
};

it("resumes after the last id it delivered and drops ids it already has (a server that replays too much)", async () => {
  const { connect, seen } = await sseServer((n) =>
    n === 0
      ? { body: frame(1, "a") + frame(2, "b") }
      : { body: frame(1, "a") + frame(2, "b") + frame(3, "c") },
  );
  const stream = new EventStream({
    connect,
    isLast: (event) => event.type === "TEXT_BLOCK_DELTA" && event.delta === "c",
    retry: { initialDelayMs: 1 },
  });
  const deltas = (await stream.collect()).map((e) => (e.type === "TEXT_BLOCK_DELTA" ? e.delta : ""));
  expect(deltas).toEqual(["a", "b", "c"]);
  expect(seen).toEqual(["0", "2"]);
  expect(stream.lastEventId).toBe(3);
});

it("a gap frame (events dropped by retention) ends the stream with EventsLostError, never a silent gap", async () => {
  const { connect } = await sseServer(() => ({
    body: `event: gap\ndata: ${JSON.stringify({ firstEventId: 40, message: "dropped" })}\n\n`,
  }));
  const error = await new EventStream({ connect, after: 10 }).collect().catch((e: unknown) => e);
  expect(error).toBeInstanceOf(EventsLostError);
  expect(error).toMatchObject({ firstEventId: 40, lastEventId: 10, kind: "events_lost" });
});

it("a 404 is not retried: it ends the stream with the service's typed error", async () => {
  const { connect, seen } = await sseServer(() => ({
    status: 404,
    body: JSON.stringify({ error: { type: "not_found", message: 'session "x" does not exist' } }),
  }));
  const error = await new EventStream({ connect }).collect().catch((e: unknown) => e);
  expect(error).toBeInstanceOf(ServiceError);
  expect(error).toMatchObject({ status: 404, type: "not_found" });
  expect(seen).toHaveLength(1);
});

it("a 503 is retried with backoff, then the stream goes on", async () => {
  const { connect, seen } = await sseServer((n) =>
    n < 2 ? { status: 503, body: "{}" } : { body: frame(1, "done") },
  );
  const stream = new EventStream({ connect, isLast: () => true, retry: { initialDelayMs: 1 } });
  expect(await stream.collect()).toHaveLength(1);
  expect(seen).toHaveLength(3);
});

it("a sub-agent's pause on a stream that stays open: once quiet, the stream asks whether the run goes on, and ends when it does not", async () => {
  const pause = createEvent("REQUIRE_USER_CONFIRM", {
    replyId: "child",
    source: "main/researcher",
    toolCalls: [{ type: "tool_call", id: "c1", name: "record", input: "{}", state: "asking" }],
  });
  const { connect } = await sseServer(() => ({
    body: `id: 7\nevent: ${pause.type}\ndata: ${JSON.stringify(pause)}\n\n`,
    hold: true,
  }));
  const asked: number[] = [];
  const stream = new EventStream({
    connect,
    mayHaveEnded: (event) => event.type === "REQUIRE_USER_CONFIRM",
    settleMs: 20,
    shouldResume: async (after) => {
      asked.push(after);
      return asked.length < 2;
    },
  });
  expect((await stream.collect()).map((e) => e.type)).toEqual(["REQUIRE_USER_CONFIRM"]);
  expect(asked).toEqual([7, 7]);
});
