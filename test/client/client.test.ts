import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { type RunningServer, startServer } from "../../src/app/server/start-server.js";
import {
  AgentScopeClient,
  applySessionEvent,
  emptySessionView,
  ServiceError,
} from "../../src/client/index.js";
import type { AgentEvent } from "../../src/event/index.js";
import { conversationModel, recordTool } from "../app/fixtures/agents.js";
import { isType, readSse } from "../app/helpers.js";

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function serve(options: { store?: string; port?: number; tokensEnv?: string; delayMs?: number } = {}) {
  const calls = { count: 0 };
  const server = await startServer({
    config: {
      agents: [
        {
          name: "main",
          model: conversationModel({
            delayMs: options.delayMs ?? 0,
            text: `Recorded. ${"Every word of this answer streams as its own small delta. ".repeat(4)}Done.`,
          }),
          tools: [recordTool(undefined, calls)],
        },
      ],
    },
    store: options.store ?? "memory:",
    port: options.port ?? 0,
    tokensEnv: options.tokensEnv ?? "",
    withoutOptionalRoutes: true,
  });
  let closed = false;
  const close = async () => {
    if (closed) return;
    closed = true;
    await server.close();
  };
  cleanups.push(close);
  return { server, calls, close };
}

/** The session's whole event log as the service has it, read raw (ids and events). */
async function logOf(server: RunningServer, sessionId: string, lastType = "REPLY_END") {
  const response = await fetch(`${server.url}/v1/sessions/${sessionId}/events?after=0`, {
    headers: { accept: "text/event-stream" },
  });
  return (await readSse(response, isType(lastType), 10_000)).frames;
}

describe("AgentScopeClient against a real service", () => {
  it("creates, lists, reads and deletes sessions; a missing one is a typed not_found error", async () => {
    const { server } = await serve();
    const client = new AgentScopeClient({ baseUrl: server.url });
    expect(await client.agents()).toEqual(["main"]);
    expect(await client.memories()).toEqual({ enabled: false, memories: [] });
    await expect(client.deleteMemory("nope")).rejects.toMatchObject({ status: 404, type: "not_found" });
    const created = await client.createSession({ title: "groceries" });
    expect(created).toMatchObject({ agent: "main", title: "groceries" });
    expect((await client.listSessions()).sessions.map((s) => s.sessionId)).toContain(created.sessionId);
    const detail = await client.getSession(created.sessionId);
    expect(detail.status).toMatchObject({ running: false, lastEventId: 0, messageCount: 0 });
    await client.deleteSession(created.sessionId);
    const error = await client.getSession(created.sessionId).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ServiceError);
    expect(error).toMatchObject({ status: 404, type: "not_found", retryable: false });
    expect((error as Error).message).toContain(created.sessionId);
  });

  it("sends the bearer token, and a wrong one is a typed authentication error", async () => {
    const { server } = await serve({ tokensEnv: "secret-1:alice" });
    const wrong = new AgentScopeClient({ baseUrl: server.url, token: "nope" });
    await expect(wrong.listSessions()).rejects.toMatchObject({ status: 401, type: "authentication" });
    let token = "secret-1";
    const client = new AgentScopeClient({ baseUrl: server.url, token: () => token });
    const session = await client.createSession();
    expect(session.owner).toBe("alice");
    token = "";
    await expect(client.status(session.sessionId)).rejects.toMatchObject({ type: "authentication" });
  });

  it("send streams to the confirmation, confirm with edited arguments streams to REPLY_END, and the folded view equals the stored messages", async () => {
    const { server, calls } = await serve();
    const client = new AgentScopeClient({ baseUrl: server.url });
    const { sessionId } = await client.createSession();

    const first = client.send(sessionId, "record hello");
    const asked = await first.collect();
    expect(first.replyId).toBe(asked[0]?.replyId);
    expect(asked.at(-1)?.type).toBe("REQUIRE_USER_CONFIRM");
    const status = await client.status(sessionId);
    expect(status).toMatchObject({ waitingFor: "user_confirm", lastEventId: first.lastEventId });

    let view = emptySessionView();
    for (const event of asked) view = applySessionEvent(view, event);
    expect(view.pendingApprovals.map((c) => c.name)).toEqual(["record"]);
    const call = view.pendingApprovals[0]!;

    const rest = client.confirm(sessionId, {
      answers: [{ toolCallId: call.id, confirmed: true, input: JSON.stringify({ note: "edited" }) }],
    });
    const finished = await rest.collect();
    expect(finished.at(-1)).toMatchObject({ type: "REPLY_END", finishedReason: "completed" });
    expect(calls.count).toBe(1);
    for (const event of finished) view = applySessionEvent(view, event);
    expect(view.pendingApprovals).toEqual([]);
    expect(view.running).toBe(false);

    const stored = await client.messages(sessionId);
    expect(view.messages).toEqual(stored.filter((m) => m.role === "assistant"));
    const result = stored.at(-1)!.content.find((b) => b.type === "tool_result");
    expect(result).toMatchObject({ output: "recorded edited" });
  });

  it("a second send while a run holds the session is a typed error, and interrupt stops the run", async () => {
    const { server } = await serve({ delayMs: 30 });
    const client = new AgentScopeClient({ baseUrl: server.url });
    const { sessionId } = await client.createSession();
    await client.send(sessionId, "record hello").collect();
    const approval = (await client.status(sessionId)).pendingToolCalls[0]!;
    const stream = client.confirm(sessionId, { answers: [{ toolCallId: approval.id, confirmed: true }] });
    const iterator = stream[Symbol.asyncIterator]();
    await iterator.next();
    const busy = await client
      .send(sessionId, "again")
      .collect()
      .catch((e: unknown) => e);
    expect(busy).toBeInstanceOf(ServiceError);
    expect((busy as ServiceError).status).toBe(409);
    await client.interrupt(sessionId, "the user pressed stop");
    let last: AgentEvent | undefined;
    for (let next = await iterator.next(); !next.done; next = await iterator.next()) last = next.value;
    expect(last).toMatchObject({ type: "REPLY_END", finishedReason: "interrupted" });
  });

  it("reconnects with Last-Event-ID after a dropped connection: every event once, in order", async () => {
    const { server } = await serve({ delayMs: 15 });
    const { startTcpProxy } = await import("./tcp-proxy.js");
    const proxy = await startTcpProxy(() => server.port);
    cleanups.push(() => proxy.close());
    const states: string[] = [];
    const client = new AgentScopeClient({ baseUrl: proxy.url, retry: { initialDelayMs: 20 } });
    const { sessionId } = await client.createSession();
    await client.send(sessionId, "record hello").collect();
    const approval = (await client.status(sessionId)).pendingToolCalls[0]!;

    const seen: AgentEvent[] = [];
    let drops = 0;
    const stream = client.confirm(
      sessionId,
      { answers: [{ toolCallId: approval.id, confirmed: true }] },
      { onConnectionChange: (state) => states.push(state) },
    );
    for await (const event of stream) {
      seen.push(event);
      // Cut the network twice in the middle of the streamed answer.
      if (
        event.type === "TEXT_BLOCK_DELTA" &&
        drops < 2 &&
        seen.filter((e) => e.type === "TEXT_BLOCK_DELTA").length % 10 === 5
      ) {
        drops += 1;
        proxy.dropAll();
      }
    }
    expect(drops).toBe(2);
    expect(states.filter((s) => s === "reconnecting").length).toBeGreaterThanOrEqual(2);
    const log = await logOf(server, sessionId);
    const tail = log.filter(
      (frame) => frame.id! > log.findIndex((f) => f.event === "REQUIRE_USER_CONFIRM") + 1,
    );
    expect(seen.map((e) => e.id)).toEqual(tail.map((frame) => frame.data!.id));
    expect(seen.at(-1)?.type).toBe("REPLY_END");
  });

  it("follows a session across a server restart (same store, same port): no duplicate, no gap", async () => {
    const dir = mkdtempSync(join(tmpdir(), "agentscope-client-"));
    cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
    const store = `sqlite:${join(dir, "state.db")}`;
    const first = await serve({ store });
    const port = first.server.port;
    const client = new AgentScopeClient({
      baseUrl: first.server.url,
      retry: { initialDelayMs: 20, maxDelayMs: 200 },
    });
    const { sessionId } = await client.createSession();
    const asked = await client.send(sessionId, "record hello").collect();

    const follow = client.events(sessionId, { after: 2 });
    const followed: AgentEvent[] = [];
    const done = (async () => {
      for await (const event of follow) {
        followed.push(event);
        if (event.type === "REPLY_END") follow.close();
      }
    })();
    await expect.poll(() => followed.length).toBe(asked.length - 2);
    await first.close();

    const second = await serve({ store, port });
    const approval = (await client.status(sessionId)).pendingToolCalls[0]!;
    const finished = await client
      .confirm(sessionId, { answers: [{ toolCallId: approval.id, confirmed: true }] })
      .collect();
    await done;
    expect(finished.at(-1)?.type).toBe("REPLY_END");
    const log = await logOf(second.server, sessionId);
    expect(followed.map((e) => e.id)).toEqual(log.slice(2).map((frame) => frame.data!.id));
    expect(follow.lastEventId).toBe(log.at(-1)!.id);
  });
});
