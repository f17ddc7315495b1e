import type { Redis } from "ioredis";
import type { AgentEvent } from "../../event/index.js";
import { newId } from "../../message/index.js";
import { importDriver } from "../lazy-driver.js";
import { LoopTurnBatch } from "../loop-turn-batch.js";
import { parseServerUrl } from "../server-url.js";
import { FencedError } from "../service/fenced-error.js";
import { type HeldLease, HeldLeases } from "../service/held-leases.js";
import { leaseOwner, ownerIsGone } from "../service/lease-owner.js";
import { decodeBusMessage, encodeBusMessage, LocalBus } from "../service/local-bus.js";
import { loggedAfter, parseLoggedEvent } from "../service/logged-row.js";
import { pageRecords } from "../service/page-records.js";
import {
  checkpointWrite,
  prepareSave,
  type RunWrite,
  runEndResult,
  runEndWrite,
  writtenEvents,
} from "../service/run-end-save.js";
import {
  type BackendOptions,
  DEFAULT_LOCK_TTL_MS,
  DEFAULT_MAX_EVENTS,
  type LoggedEvent,
  type RunEndResult,
  type RunLease,
  type ServiceBackend,
  type SessionRecord,
} from "../service/service-backend.js";
import { StateConflictError } from "../store-errors.js";
import type { BackendModule } from "../store-family.js";
import { redisAppendBatch } from "./redis-append-batch.js";
import { ACQUIRE, EXPIRED, generationOf, RELEASE, RENEW } from "./redis-leases.js";
import { redisRunEndBatch } from "./redis-run-end.js";
import { RedisScript } from "./redis-script.js";
import { RedisStateStore } from "./redis-store.js";

/** KEYS: record hash, owner index. ARGV: session id, owner, agent, title, createdAt. */
const CREATE = new RedisScript(
  `
if redis.call('EXISTS', KEYS[1]) == 1 then return 0 end
redis.call('HSET', KEYS[1], 'owner', ARGV[2], 'agent', ARGV[3], 'title', ARGV[4], 'createdAt', ARGV[5])
redis.call('ZADD', KEYS[2], 0, ARGV[1])
return 1`,
);

/** KEYS: record hash. ARGV: title. Only an existing record (never recreates a deleted one). */
const SET_TITLE = new RedisScript(
  `
if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end
redis.call('HSET', KEYS[1], 'title', ARGV[1])
return 1`,
);

function toRecord(sessionId: string, h: Record<string, string>): SessionRecord | undefined {
  if (!h.owner) return undefined;
  const record: SessionRecord = {
    sessionId,
    owner: h.owner,
    agent: h.agent ?? "",
    createdAt: h.createdAt ?? "",
  };
  if (h.title) record.title = h.title;
  return record;
}

/** A lock key, the token its lease holds it by, and its session (for the runs index). */
interface LockToken {
  key: string;
  token: string;
  sessionId: string;
}

function seqOf(id: string): number {
  return Number(id.slice(id.indexOf("-") + 1));
}

/** A stream entry (its id and the fields `event <json>`) of session `sessionId`'s log as a LoggedEvent. */
function loggedEntry(sessionId: string, [id, fields]: [string, string[]]): LoggedEvent {
  const seq = seqOf(id);
  const json = fields[1] ?? "";
  return { seq, event: parseLoggedEvent(sessionId, seq, json), json };
}

/**
 * Redis: the event log is a Stream per session (entry id `0-<seq>`, trimmed to the retention bound),
 * the run lock `SET NX PX` renewed by its holder, sessions a hash each plus a sorted set per owner,
 * and replicas notify each other on one pub/sub channel (`<prefix>bus`).
 */
export async function redisBackend(url: string, options: BackendOptions = {}): Promise<ServiceBackend> {
  const { Redis: RedisClient } = await importDriver(
    () => import("ioredis"),
    "ioredis",
    "the Redis service backend",
  );
  const p = options.prefix ?? "agentscope:";
  const ttl = options.lockTtlMs ?? DEFAULT_LOCK_TTL_MS;
  const max = options.maxEventsPerSession ?? DEFAULT_MAX_EVENTS;
  // Commands issued close together go out in one write (reads and lock commands of many sessions):
  // less CPU per command on both sides. Not the scripts: each is already one call for every session
  // of a loop turn (appends, saves, renewals, releases), and in an automatic pipeline a call waits for
  // the pipeline before it to be answered, which kept each batch's arguments (every event's JSON)
  // alive long enough to be promoted to the old generation, and so brought full collections sooner.
  // Not for the subscriber, whose connection only listens.
  const connect = async (enableAutoPipelining: boolean): Promise<Redis> => {
    const client = new RedisClient(url, {
      lazyConnect: true,
      maxRetriesPerRequest: 3,
      enableAutoPipelining,
      autoPipeliningIgnoredCommands: ["evalsha", "eval"],
    });
    client.on("error", () => {}); // commands reject with the error; ioredis would print it otherwise
    try {
      await client.connect();
    } catch (error) {
      client.disconnect();
      throw new Error(`the Redis service backend cannot connect to ${url}: ${(error as Error).message}`, {
        cause: error,
      });
    }
    return client;
  };
  const redis = await connect(true);
  const subscriber = await connect(false);
  const store = new RedisStateStore({ client: redis, prefix: `${p}state:` });
  const channel = `${p}bus`;
  const local = new LocalBus();
  // This replica's name on the bus: its own messages come back from Redis and are skipped.
  const replica = newId("replica");
  subscriber.on("message", (_channel: string, text: string) => {
    const message = decodeBusMessage(text, replica);
    if (message) local.deliver(message);
  });
  await subscriber.subscribe(channel);

  const logOptions = {
    maxEventsPerSession: max,
    channel,
    ownSubscriptions: () => (subscriber.status === "ready" ? 1 : 0),
  };
  /** The runs index: a session id per lease not released, scored by its expiry (see redis-leases.ts). */
  const runsKey = `${p}runs`;
  const appends = redisAppendBatch(redis, logOptions);
  const runEnds = redisRunEndBatch(redis, { ...logOptions, index: store.indexKey, runs: runsKey });
  const heldLeases = new HeldLeases();
  /** One call of a lease script for several locks: whether each was still its token's. */
  const runLeaseScript = async (
    script: RedisScript,
    leading: Array<string | number>,
    locks: readonly LockToken[],
  ): Promise<boolean[]> => {
    const args = [...leading];
    for (const lock of locks) args.push(lock.token, lock.sessionId);
    const done = (await script.run(redis, [runsKey, ...locks.map((lock) => lock.key)], args)) as number[];
    return done.map((ok) => ok === 1);
  };
  // Leases renewed or released in one turn (one at a time) go in one script call.
  const leaseBatch = (script: RedisScript, leading: Array<string | number>) =>
    new LoopTurnBatch<LockToken, boolean>((locks) => runLeaseScript(script, leading, locks));
  const renewals = leaseBatch(RENEW, [ttl]);
  const releases = leaseBatch(RELEASE, []);
  const streamKey = (id: string) => `${p}events:${id}`;
  const newestEntry = async (sessionId: string) =>
    (await redis.xrevrange(streamKey(sessionId), "+", "-", "COUNT", 1))[0];
  const lockKey = (id: string) => `${p}lock:${id}`;
  const recordKey = (id: string) => `${p}session:${id}`;
  const ownerKey = (owner: string) => `${p}owner:${owner}`;
  /** The store's lease counter: every acquire's generation is one more. */
  const generationKey = `${p}lease-generation`;
  const lockOf = (sessionId: string, token: string): LockToken => ({
    key: lockKey(sessionId),
    token,
    sessionId,
  });
  const tokenOf = (held: HeldLease) => `${held.owner}#${held.generation}`;

  /** The new lease's generation, or undefined when the session is held. */
  async function take(sessionId: string, owner: string): Promise<number | undefined> {
    const acquire = async () =>
      Number(await ACQUIRE.run(redis, [lockKey(sessionId), generationKey, runsKey], [owner, ttl, sessionId]));
    const generation = await acquire();
    if (generation > 0) return generation;
    const holder = await redis.get(lockKey(sessionId));
    if (holder === null || !ownerIsGone(holder)) return undefined;
    await releases.call(lockOf(sessionId, holder));
    const again = await acquire();
    return again > 0 ? again : undefined;
  }

  /** A fenced write's answer: -1 (the lease no longer holds the session) is its FencedError. */
  const fenced = (held: HeldLease | undefined, lastSeq: number, sessionId: string) => {
    if (!held || lastSeq !== -1) return;
    held.released = true; // lost: it renews and releases no more
    throw new FencedError(sessionId, held.generation);
  };

  /**
   * A run's end (with its lease) or a checkpoint (without): the events, the save, the end events and
   * the lease's release in one script call.
   */
  async function commit(run: RunWrite): Promise<RunEndResult> {
    const { sessionId } = run;
    const held = run.lease && heldLeases.of(run.lease);
    const { events, json } = writtenEvents(run);
    const count = run.events.length;
    const { save, saveError } = await prepareSave(run.save, ({ state, expectedVersion: expected }) => ({
      expected,
      json: store.savePayload(sessionId, state, { expectedVersion: expected }),
    }));
    const { lastSeq, saved, version } = await runEnds.call({
      sessionId,
      stream: streamKey(sessionId),
      stateKey: store.stateKey(sessionId),
      lock: lockKey(sessionId),
      token: held ? tokenOf(held) : "",
      releases: run.releases,
      notice: encodeBusMessage({ sessionId, kind: "events" }, replica),
      json: json.slice(0, count),
      ...(save ? { save } : {}),
      endJson: json.slice(count),
    });
    fenced(held, lastSeq, sessionId);
    if (held && run.releases) held.released = true;
    const logged = loggedAfter(lastSeq - events.length, events, json);
    const savedVersion =
      save &&
      (() => {
        if (!saved) throw new StateConflictError(sessionId, save.expected, version);
        return version;
      });
    return runEndResult(logged, savedVersion, saveError);
  }

  return {
    kind: "redis",
    lockTtlMs: ttl,
    store,
    async now() {
      const [seconds, micros] = (await redis.time()) as [string | number, string | number];
      return Number(seconds) * 1000 + Math.floor(Number(micros) / 1000);
    },
    bus: {
      async publish(message) {
        local.deliver(message);
        // Every append has told the other replicas already (from inside its script).
        if (message.kind !== "events") await redis.publish(channel, encodeBusMessage(message, replica));
      },
      subscribe: (sessionId, listener) => local.subscribe(sessionId, listener),
    },
    events: {
      async append(sessionId, events: AgentEvent[], lease) {
        if (events.length === 0) return [];
        const held = lease && heldLeases.of(lease);
        const json = events.map((event) => JSON.stringify(event));
        const notice = encodeBusMessage({ sessionId, kind: "events" }, replica);
        const token = held ? tokenOf(held) : "";
        const lastSeq = await appends.call({
          key: streamKey(sessionId),
          lock: lockKey(sessionId),
          token,
          notice,
          json,
        });
        fenced(held, lastSeq, sessionId);
        return loggedAfter(lastSeq - events.length, events, json);
      },
      async read(sessionId, after, limit) {
        const entries = await redis.xrange(streamKey(sessionId), `0-${after + 1}`, "+", "COUNT", limit);
        return entries.map((entry) => loggedEntry(sessionId, entry));
      },
      async lastSeq(sessionId) {
        const entry = await newestEntry(sessionId);
        return entry ? seqOf(entry[0]) : 0;
      },
      async last(sessionId) {
        const entry = await newestEntry(sessionId);
        return entry && loggedEntry(sessionId, entry);
      },
      async firstSeq(sessionId) {
        const [entry] = await redis.xrange(streamKey(sessionId), "-", "+", "COUNT", 1);
        return entry ? seqOf(entry[0]) : 0;
      },
      async delete(sessionId) {
        await redis.del(streamKey(sessionId));
      },
    },
    locks: {
      async acquire(sessionId): Promise<RunLease | undefined> {
        const owner = leaseOwner();
        const generation = await take(sessionId, owner);
        if (generation === undefined) return undefined;
        const held: HeldLease = { owner, generation, released: false };
        const lock = lockOf(sessionId, tokenOf(held));
        const lease: RunLease = {
          sessionId,
          generation,
          renew: async () => !held.released && (await renewals.call(lock)),
          release: async () => {
            if (held.released) return;
            held.released = true;
            await releases.call(lock);
          },
        };
        return heldLeases.add(lease, held);
      },
      renewMany: (leases) =>
        heldLeases.renewMany(leases, (toRenew) =>
          runLeaseScript(
            RENEW,
            [ttl],
            toRenew.map(({ lease, owner, generation }) => lockOf(lease.sessionId, `${owner}#${generation}`)),
          ),
        ),
      // the runs index's entries past their expiry (by Redis's clock): leases that expired unreleased
      async abandoned(limit) {
        const ids = (await EXPIRED.run(redis, [runsKey], [limit])) as string[];
        if (ids.length === 0) return [];
        const tokens = await redis.mget(...ids.map(lockKey));
        return ids.map((sessionId, i) => ({ sessionId, generation: generationOf(tokens[i] ?? "") }));
      },
      async isHeld(sessionId) {
        // A lease left by a process on this host that died is not held (as acquire treats it).
        const holder = await redis.get(lockKey(sessionId));
        return holder !== null && !ownerIsGone(holder);
      },
    },
    sessions: {
      async create(r) {
        const args = [r.sessionId, r.owner, r.agent, r.title ?? "", r.createdAt];
        return (await CREATE.run(redis, [recordKey(r.sessionId), ownerKey(r.owner)], args)) === 1;
      },
      async get(sessionId) {
        return toRecord(sessionId, await redis.hgetall(recordKey(sessionId)));
      },
      async list(owner, { limit, cursor }) {
        const start = cursor === undefined ? "-" : `(${cursor}`;
        const ids = await redis.zrangebylex(ownerKey(owner), start, "+", "LIMIT", 0, limit + 1);
        const pipeline = redis.pipeline();
        for (const id of ids) pipeline.hgetall(recordKey(id));
        const replies = (await pipeline.exec()) ?? [];
        const records = ids.flatMap((id, i) => {
          const [error, hash] = replies[i] ?? [];
          if (error) throw error;
          return toRecord(id, hash as Record<string, string>) ?? [];
        });
        return pageRecords(records, limit);
      },
      async setTitle(sessionId, title) {
        return (await SET_TITLE.run(redis, [recordKey(sessionId)], [title])) === 1;
      },
      async delete(sessionId) {
        const owner = await redis.hget(recordKey(sessionId), "owner");
        await redis.del(recordKey(sessionId));
        if (owner !== null) await redis.zrem(ownerKey(owner), sessionId);
      },
    },
    endRun: (end) => commit(runEndWrite(end)),
    checkpoint: (checkpoint) => commit(checkpointWrite(checkpoint)),
    async close() {
      await store.close();
      await Promise.allSettled([subscriber.quit(), redis.quit()]);
    },
  };
}

/** The Redis family's backend, on the server of a `redis://` URL. */
export const openBackend: BackendModule["openBackend"] = (url, options) =>
  redisBackend(parseServerUrl(url, "the Redis service backend"), options);
