import { afterEach, describe, expect, it, vi } from "vitest";
import { createApp } from "../../src/app/server/app.js";
import { memoryBackend } from "../../src/app/server/backend/memory-backend.js";
import type { LoggedEvent, ServiceBackend } from "../../src/app/server/backend/types.js";
import { FollowClock } from "../../src/app/server/runtime/follow-clock.js";
import { followEvents } from "../../src/app/server/runtime/follow-events.js";
import type { FollowItem } from "../../src/app/server/runtime/follower.js";
import { ServiceRuntime } from "../../src/app/server/runtime/service-runtime.js";
import { SessionFeeds } from "../../src/app/server/runtime/session-feed.js";
import { type AgentEvent, createEvent } from "../../src/event/index.js";
import { userMsg } from "../../src/message/index.js";
import { ScriptedModel } from "../../src/testing/index.js";
import { readSse } from "./helpers.js";

const runtimes: ServiceRuntime[] = [];
afterEach(async () => {
  vi.useRealTimers();
  await Promise.all(runtimes.splice(0).map((r) => r.close()));
});

/** A memory backend that counts reads of the event log. */
function countingBackend(): ServiceBackend & { reads: number } {
  const backend = memoryBackend();
  const counted = { ...backend, reads: 0 };
  counted.events = {
    ...backend.events,
    append: (s, e) => backend.events.append(s, e),
    read: (s, after, limit) => {
      counted.reads += 1;
      return backend.events.read(s, after, limit);
    },
    lastSeq: (s) => backend.events.lastSeq(s),
    firstSeq: (s) => backend.events.firstSeq(s),
    delete: (s) => backend.events.delete(s),
  };
  return counted;
}

const delta = (i: number): AgentEvent =>
  createEvent("TEXT_BLOCK_DELTA", { replyId: "r1", blockId: "b1", delta: `d${i}` });

/** Appends `count` events as one batch and tells followers, as a run's EventQueue does. */
async function appendBatch(backend: ServiceBackend, sessionId: string, from: number, count: number) {
  await backend.events.append(
    sessionId,
    Array.from({ length: count }, (_, k) => delta(from + k)),
  );
  await backend.bus.publish({ sessionId, kind: "events" });
}

/** Appends a batch and tells followers with the logged events, as a run's EventQueue does. */
async function appendAndDeliver(backend: ServiceBackend, sessionId: string, from: number, count: number) {
  const events = await backend.events.append(
    sessionId,
    Array.from({ length: count }, (_, k) => delta(from + k)),
  );
  await backend.bus.publish({ sessionId, kind: "events", events });
}

/** Pulls a follower in the background, keeping every event item. */
function collect(items: AsyncGenerator<FollowItem>) {
  const events: Extract<FollowItem, { kind: "event" }>[] = [];
  const done = (async () => {
    for await (const item of items) if (item.kind === "event") events.push(item);
  })();
  return { events, done };
}

/** Options for followers of one process from seq 0 (shared feeds and clock) that stop at `finish()`. */
function followOptions(backend: ServiceBackend) {
  let finish!: () => void;
  const until = new Promise<void>((resolve) => {
    finish = resolve;
  });
  const feeds = new SessionFeeds(backend);
  const clock = new FollowClock(50);
  const signal = new AbortController().signal;
  return { options: { after: 0, signal, until, heartbeatMs: 60_000, feeds, clock }, finish };
}

describe("followers of one session in one process", () => {
  it("all receive the same complete, ordered stream, one shared item per event, with reads shared", async () => {
    const backend = countingBackend();
    const feeds = new SessionFeeds(backend);
    const clock = new FollowClock(50);
    const controller = new AbortController();
    let finish!: () => void;
    const until = new Promise<void>((resolve) => {
      finish = resolve;
    });
    const followers = Array.from({ length: 40 }, () =>
      collect(
        followEvents(backend, "s", {
          after: 0,
          signal: controller.signal,
          until,
          heartbeatMs: 60_000,
          feeds,
          clock,
        }),
      ),
    );
    const batches = 6;
    let appended = 0;
    for (let b = 0; b < batches; b++) {
      await appendBatch(backend, "s", appended + 1, 3);
      appended += 3;
      await vi.waitFor(() => {
        for (const f of followers) expect(f.events.length).toBe(appended);
      });
    }
    finish();
    await Promise.all(followers.map((f) => f.done));

    const log = await backend.events.read("s", 0, 1000);
    const seqs = log.map((e) => e.seq);
    expect(seqs).toEqual(Array.from({ length: appended }, (_, k) => k + 1));
    for (const f of followers) {
      expect(f.events.map((e) => e.seq)).toEqual(seqs);
      expect(f.events.map((e) => e.event)).toEqual(log.map((e) => e.event));
      // the very same item objects: each event is serialised (and its SSE frame encoded) once
      for (const [k, item] of f.events.entries()) expect(item).toBe(followers[0]!.events[k]);
    }
    expect(followers[0]!.events.every((e) => e.json === JSON.stringify(e.event))).toBe(true);
    // one read per batch for all 40 (plus the reads that found nothing new), not 40 per batch
    expect(backend.reads).toBeLessThan(40 * batches);
    expect(feeds.size).toBe(0);
    expect(clock.size).toBe(0);
  });

  it("followers of a run in this process take its events from the notice: no read of the log per append", async () => {
    const backend = countingBackend();
    const { options, finish } = followOptions(backend);
    const followers = Array.from({ length: 10 }, () => collect(followEvents(backend, "s", options)));
    await appendAndDeliver(backend, "s", 1, 2);
    await vi.waitFor(() => {
      for (const f of followers) expect(f.events.length).toBe(2);
    });
    const readsBefore = backend.reads;
    let appended = 2;
    for (let b = 0; b < 8; b++) {
      await appendAndDeliver(backend, "s", appended + 1, b % 3 === 0 ? 1 : 3);
      appended += b % 3 === 0 ? 1 : 3;
      await vi.waitFor(() => {
        for (const f of followers) expect(f.events.length).toBe(appended);
      });
    }
    expect(backend.reads).toBe(readsBefore);
    // an append announced without its events (another replica's) is read from the log
    await appendBatch(backend, "s", appended + 1, 2);
    appended += 2;
    await vi.waitFor(() => {
      for (const f of followers) expect(f.events.length).toBe(appended);
    });
    expect(backend.reads).toBeGreaterThan(readsBefore);
    finish();
    await Promise.all(followers.map((f) => f.done));
    const seqs = Array.from({ length: appended }, (_, k) => k + 1);
    for (const f of followers) {
      expect(f.events.map((e) => e.seq)).toEqual(seqs);
      expect(f.events.map((e) => (e.event as { delta: string }).delta)).toEqual(seqs.map((k) => `d${k}`));
    }
  });

  it("a follower that hears every append does not read the log when its clock wakes it; a polling one does", async () => {
    const backend = countingBackend();
    const { options, finish } = followOptions(backend);
    // heartbeats every 20 ms: the clock wakes the follower many times while nothing is appended
    const live = collect(followEvents(backend, "s", { ...options, heartbeatMs: 20 }));
    await appendAndDeliver(backend, "s", 1, 2);
    await vi.waitFor(() => expect(live.events.length).toBe(2));
    const readsBefore = backend.reads;
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(backend.reads).toBe(readsBefore);
    // a follower that polls (its writers may be in another process) reads on each wake-up
    const polling = collect(followEvents(backend, "s", { ...options, heartbeatMs: 20, pollMs: 20 }));
    await vi.waitFor(() => expect(polling.events.length).toBe(2));
    const pollingBefore = backend.reads;
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(backend.reads).toBeGreaterThan(pollingBefore + 2);
    await appendAndDeliver(backend, "s", 3, 1);
    await vi.waitFor(() => expect([live.events.length, polling.events.length]).toEqual([3, 3]));
    finish();
    await Promise.all([live.done, polling.done]);
  });

  it("following a run its own user just started skips the session look-up; anyone else is still checked", async () => {
    const backend = memoryBackend();
    let lookups = 0;
    const get = backend.sessions.get.bind(backend.sessions);
    backend.sessions.get = (sessionId) => {
      lookups += 1;
      return get(sessionId);
    };
    const runtime = new ServiceRuntime({
      backend,
      agents: [{ name: "a", model: new ScriptedModel([{ text: "hi", delayMs: 20 }]) }],
    });
    runtimes.push(runtime);
    const mine = await runtime.createSession("alice");
    const other = await runtime.createSession("alice");
    const run = await runtime.startReply("alice", mine.sessionId, [userMsg("go")]);
    const signal = new AbortController().signal;
    const follow = (user: string, sessionId: string) =>
      runtime.follow(user, sessionId, { after: run.after, signal, until: run.done });
    lookups = 0;
    const items = await follow("alice", mine.sessionId);
    expect(lookups).toBe(0);
    // the run's promise proves nothing about another user, nor about another session
    await expect(follow("mallory", mine.sessionId)).rejects.toMatchObject({ info: { type: "not_found" } });
    await expect(follow("mallory", other.sessionId)).rejects.toMatchObject({ info: { type: "not_found" } });
    expect(lookups).toBe(2);
    const events = [];
    for await (const item of items) if (item.kind === "event") events.push(item.event.type);
    expect(events.at(-1)).toBe("REPLY_END");
  });

  it("the feed lets a batch go once every follower has it, and keeps it while one is behind", async () => {
    const backend = countingBackend();
    const { options, finish } = followOptions(backend);
    // the shared feed itself, seen through a listener that is never behind
    const feed = options.feeds.join("s", { notify: () => {}, cursor: Number.POSITIVE_INFINITY });
    const followers = Array.from({ length: 3 }, () => collect(followEvents(backend, "s", options)));
    await appendAndDeliver(backend, "s", 1, 3);
    await vi.waitFor(() => {
      for (const f of followers) expect(f.events.length).toBe(3);
    });
    // every follower has the batch: a live stream holds no event until the next append
    expect(feed.kept).toEqual([]);

    // one follower takes a single event and stops pulling: the batch stays for it
    const slow = followEvents(backend, "s", { ...options, after: 3 });
    const slowFirst = slow.next();
    const readsBefore = backend.reads;
    await appendAndDeliver(backend, "s", 4, 3);
    expect((await slowFirst).value).toMatchObject({ kind: "event", seq: 4 });
    await vi.waitFor(() => {
      for (const f of followers) expect(f.events.length).toBe(6);
    });
    expect(feed.kept.map((item) => item.seq)).toEqual([4, 5, 6]);
    // it takes the rest from the kept batch (no read of the log), and then the batch goes
    const rest = [(await slow.next()).value, (await slow.next()).value];
    expect(rest).toMatchObject([{ seq: 5 }, { seq: 6 }]);
    await vi.waitFor(() => expect(feed.kept).toEqual([]));
    expect(backend.reads).toBe(readsBefore);

    // a follower that joins later, from the start, reads what was let go from the log
    const late = collect(followEvents(backend, "s", options));
    await vi.waitFor(() => expect(late.events.map((e) => e.seq)).toEqual([1, 2, 3, 4, 5, 6]));
    finish();
    await slow.return(undefined);
    await Promise.all([...followers, late].map((f) => f.done));
  });

  it("a slow follower neither stalls the others nor loses an event", async () => {
    const backend = memoryBackend();
    const { options, finish } = followOptions(backend);
    const slow = followEvents(backend, "s", options);
    const fast = Array.from({ length: 5 }, () => collect(followEvents(backend, "s", options)));

    await appendBatch(backend, "s", 1, 2);
    const first = await slow.next(); // the slow one takes one event, then stops reading
    expect(first.value).toMatchObject({ kind: "event", seq: 1 });
    let appended = 2;
    for (let b = 0; b < 8; b++) {
      await appendBatch(backend, "s", appended + 1, 4);
      appended += 4;
      await vi.waitFor(() => {
        for (const f of fast) expect(f.events.length).toBe(appended);
      });
    }
    finish();
    // the fast ones end while the slow one has still read only its first event
    await Promise.all(fast.map((f) => f.done));
    const rest = collect(slow);
    await rest.done;
    const all = [1, ...rest.events.map((e) => e.seq)];
    expect(all).toEqual(Array.from({ length: appended }, (_, k) => k + 1));
    for (const f of fast) expect(f.events.map((e) => e.seq)).toEqual(all);
  });

  it("SSE: many streams of one reply carry identical, complete frames with consecutive ids", async () => {
    const text = "The quick brown fox jumps over the lazy dog. ".repeat(6);
    const runtime = new ServiceRuntime({
      backend: memoryBackend(),
      agents: [{ name: "a", model: new ScriptedModel([{ text, delayMs: 1 }], { chunkSize: 5 }) }],
    });
    runtimes.push(runtime);
    const app = createApp(runtime);
    const session = await runtime.createSession("local");
    const path = `/v1/sessions/${session.sessionId}/events?after=0`;
    const streams = await Promise.all(Array.from({ length: 25 }, () => app.request(path)));
    const reads = streams.map((response) => readSse(response, (f) => f.event === "REPLY_END", 20_000));
    await runtime.startReply("local", session.sessionId, [userMsg("go")]);
    const results = await Promise.all(reads);
    const ids = results[0]!.frames.map((f) => f.id);
    expect(ids).toEqual(Array.from({ length: ids.length }, (_, k) => k + 1));
    expect(results[0]!.frames.at(-1)!.event).toBe("REPLY_END");
    const streamed = results[0]!.frames
      .filter((f) => f.event === "TEXT_BLOCK_DELTA")
      .map((f) => (f.data as { delta: string }).delta)
      .join("");
    expect(streamed).toBe(text);
    for (const r of results) expect(r.frames).toEqual(results[0]!.frames);
  });
});

describe("FollowClock", () => {
  it("fires each waiter once its time has come, never a removed one, and stops ticking when none wait", () => {
    vi.useFakeTimers({ now: 1_000_000 });
    const clock = new FollowClock(10);
    const fired: string[] = [];
    const waiter = (name: string, inMs: number) => ({ due: Date.now() + inMs, fire: () => fired.push(name) });
    const a = waiter("a", 25);
    const b = waiter("b", 100);
    const c = waiter("c", 50);
    clock.add(a);
    clock.add(b);
    clock.add(c);
    clock.delete(c);
    vi.advanceTimersByTime(30);
    expect(fired).toEqual(["a"]);
    expect(clock.size).toBe(1);
    vi.advanceTimersByTime(80);
    expect(fired).toEqual(["a", "b"]);
    expect(clock.size).toBe(0);
    expect(vi.getTimerCount()).toBe(0);
  });
});

describe("the memory event log", () => {
  it("keeps its own copy of each event and its JSON, and reads from any id", async () => {
    const backend = memoryBackend({ maxEventsPerSession: 4 });
    const original = delta(1);
    await backend.events.append("s", [original, delta(2), delta(3)]);
    (original as { delta: string }).delta = "changed later";
    const [first] = (await backend.events.read("s", 0, 1)) as LoggedEvent[];
    expect(first!.event).toMatchObject({ delta: "d1" });
    expect(first!.json).toBe(JSON.stringify(first!.event));
    await backend.events.append("s", [delta(4), delta(5)]);
    expect((await backend.events.read("s", 0, 10)).map((e) => e.seq)).toEqual([2, 3, 4, 5]);
    expect((await backend.events.read("s", 3, 10)).map((e) => e.seq)).toEqual([4, 5]);
    expect((await backend.events.read("s", 3, 1)).map((e) => e.seq)).toEqual([4]);
    expect(await backend.events.read("s", 5, 10)).toEqual([]);
  });
});
