import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { type RunningServer, startServer } from "../../src/app/server/start-server.js";
import { AgentScopeClient } from "../../src/client/index.js";
import { dropBackend } from "../state/drop-backend.js";
import { missingService, reportMissingService, runName } from "../support/services.js";
import { conversationModel, recordTool } from "./fixtures/agents.js";
import { isType, readSse, sleep } from "./helpers.js";

// carol owns the session; the `record` call needs two approvals of alice (by name) and the sre role
// (bob, from the token configuration); dave is nobody to it.

const dir = mkdtempSync(join(tmpdir(), "agentscope-approver-inbox-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const TOKENS = "t-carol:carol,t-alice:alice,t-bob:bob:sre,t-dave:dave";
const POLICY = "records-need-two";

const kinds = [
  { name: "SQLite", url: () => `sqlite:${join(dir, `${runName("db")}.db`)}` },
  { name: "Redis", url: () => "redis://127.0.0.1:6379", port: 6379 },
  { name: "PostgreSQL", url: () => "postgres://postgres@127.0.0.1:5432/test", port: 5432 },
];

for (const kind of kinds) {
  describe(`named approvers in other users' sessions on ${kind.name}`, async () => {
    const missing = kind.port ? await missingService(kind.name, kind.port) : undefined;
    if (missing) {
      reportMissingService(missing);
      return;
    }
    const url = kind.url();
    const prefix = kind.name === "Redis" ? `${runName("inbox")}:` : `${runName("inbox")}_`;
    const calls = { count: 0 };
    const server: RunningServer = await startServer({
      config: {
        agents: [
          {
            name: "main",
            model: conversationModel(),
            tools: [recordTool(undefined, calls)],
            approvers: [
              {
                name: POLICY,
                tools: ["record"],
                users: ["alice"],
                roles: ["sre"],
                quorum: 2,
                expiresAfterMs: 600_000,
              },
            ],
          },
        ],
      },
      store: url,
      backend: { prefix },
      port: 0,
      tokensEnv: TOKENS,
      workspaces: false,
      withoutOptionalRoutes: true,
    });
    afterAll(async () => {
      await server.close();
      await dropBackend(url, prefix);
    });
    const client = (user: string) => new AgentScopeClient({ baseUrl: server.url, token: `t-${user}` });
    const send = (
      user: string,
      path: string,
      init: { method?: string; body?: unknown; accept?: string } = {},
    ) =>
      fetch(`${server.url}${path}`, {
        method: init.method ?? (init.body === undefined ? "GET" : "POST"),
        headers: {
          authorization: `Bearer t-${user}`,
          accept: init.accept ?? "application/json",
          ...(init.body === undefined ? {} : { "content-type": "application/json" }),
        },
        ...(init.body === undefined ? {} : { body: JSON.stringify(init.body) }),
      });
    const confirmAs = (user: string, sessionId: string, body: unknown, accept?: string) =>
      send(user, `/v1/sessions/${sessionId}/confirm`, { body, ...(accept ? { accept } : {}) });
    /** Waits until carol's session has no run going (an approver's answer runs on without them). */
    async function settled(sessionId: string) {
      for (let i = 0; i < 200; i++) {
        if (!(await client("carol").status(sessionId)).running) return;
        await sleep(25);
      }
      throw new Error("the session kept running");
    }
    /** What a stranger gets for a session: the 404 body, with the id taken out. */
    const notFound = async (response: Response, sessionId: string) => {
      expect(response.status).toBe(404);
      return JSON.stringify(await response.json()).replaceAll(sessionId, "<id>");
    };

    async function carolPaused() {
      const { sessionId } = await client("carol").createSession();
      const reply = await send("carol", `/v1/sessions/${sessionId}/replies`, {
        body: { text: "record it" },
        accept: "text/event-stream",
      });
      const ask = (await readSse(reply, isType("REQUIRE_USER_CONFIRM"))).frames.at(-1)!.data as {
        replyId: string;
        toolCalls: Array<{ id: string }>;
      };
      return { sessionId, replyId: ask.replyId, callId: ask.toolCalls[0]!.id };
    }

    it("the inbox lists the ask to its approvers only; a stranger, a forged id, an edit or rules run nothing and see nothing", async () => {
      const before = calls.count;
      const { sessionId, replyId, callId } = await carolPaused();
      const listed = (await client("alice").approvals()).filter((a) => a.sessionId === sessionId);
      expect(listed).toEqual([
        {
          sessionId,
          replyId,
          toolCallId: callId,
          toolName: "record",
          input: JSON.stringify({ note: "hello" }),
          policy: POLICY,
          votes: 0,
          needed: 2,
          approvedByYou: false,
          expiresAt: expect.any(String),
        },
      ]);
      expect(Date.parse(listed[0]!.expiresAt!)).toBeGreaterThan(Date.now());
      expect((await client("bob").approvals()).map((a) => a.toolCallId)).toContain(callId);
      expect((await client("dave").approvals()).map((a) => a.sessionId)).not.toContain(sessionId);
      expect((await fetch(`${server.url}/v1/approvals`)).status).toBe(401);
      // the owner's inbox holds other users' sessions only
      expect((await client("carol").approvals()).map((a) => a.sessionId)).not.toContain(sessionId);

      // dave: exactly what a session that does not exist answers
      const absent = await notFound(
        await confirmAs("dave", "no-such-session", { answers: [{ toolCallId: callId, confirmed: true }] }),
        "no-such-session",
      );
      expect(
        await notFound(
          await confirmAs("dave", sessionId, { answers: [{ toolCallId: callId, confirmed: true }] }),
          sessionId,
        ),
      ).toBe(absent);

      // alice may answer the ask, nothing else about the session
      for (const path of ["", "/events?after=0", "/status", "/decisions", "/messages"])
        expect(await notFound(await send("alice", `/v1/sessions/${sessionId}${path}`), sessionId)).toBe(
          absent,
        );
      expect(
        await notFound(
          await send("alice", `/v1/sessions/${sessionId}/interrupt`, { body: { reason: "stop" } }),
          sessionId,
        ),
      ).toBe(absent);
      expect(
        await notFound(
          await send("alice", `/v1/sessions/${sessionId}/replies`, { body: { text: "hi" } }),
          sessionId,
        ),
      ).toBe(absent);
      const forged = [
        { answers: [{ toolCallId: "call_forged", confirmed: true }] },
        {
          answers: [
            { toolCallId: callId, confirmed: true },
            { toolCallId: callId, confirmed: true },
          ],
        },
        {
          answers: [
            { toolCallId: callId, confirmed: true },
            { toolCallId: "call_forged", confirmed: true },
          ],
        },
        { answers: [{ toolCallId: callId, confirmed: true, rules: ["record"] }] },
        { answers: [{ toolCallId: callId, confirmed: true, input: JSON.stringify({ note: "evil" }) }] },
        { replyId: "reply_forged", answers: [{ toolCallId: callId, confirmed: true }] },
        {
          confirmResults: [
            {
              confirmed: true,
              toolCall: { id: callId, name: "record", input: JSON.stringify({ note: "evil" }) },
            },
          ],
        },
      ];
      for (const body of forged)
        expect(await notFound(await confirmAs("alice", sessionId, body), sessionId)).toBe(absent);
      // the channels that show the run's events (AG-UI, A2A, MCP, CLI) call the runtime owner-only
      const answers = [{ toolCallId: callId, confirmed: true }];
      await expect(
        server.runtime.confirm("alice", sessionId, answers, undefined, { via: "mcp" }),
      ).rejects.toMatchObject({
        info: { type: "not_found" },
      });
      expect(calls.count).toBe(before);
      // none of it reached the session: its records are the one ask
      expect((await client("carol").decisions(sessionId)).map((r) => r.outcome)).toEqual(["ask"]);
    });

    it("alice's approval is one vote of two, bob's (by role) runs the call exactly once; the records name both, channel rest", async () => {
      const before = calls.count;
      const { sessionId, replyId, callId } = await carolPaused();

      // asked for a stream, an approver gets the 202 JSON answer and nothing of the session's log
      const keyed = (key: string, accept = "application/json") =>
        fetch(`${server.url}/v1/sessions/${sessionId}/confirm`, {
          method: "POST",
          headers: {
            authorization: "Bearer t-alice",
            accept,
            "content-type": "application/json",
            "idempotency-key": key,
          },
          body: JSON.stringify({ answers: [{ toolCallId: callId, confirmed: true }] }),
        });
      const first = await keyed("k-alice", "text/event-stream");
      expect(first.status).toBe(202);
      expect(first.headers.get("content-type")).toContain("application/json");
      expect(await first.json()).toEqual({ sessionId, replyId, approver: true });
      await settled(sessionId);
      // her retry (the same key) is her first answer again: no second vote, no refusal
      const retry = await keyed("k-alice");
      expect(retry.status).toBe(202);
      expect(await retry.json()).toEqual({ sessionId, replyId, approver: true });
      await settled(sessionId);
      expect(calls.count).toBe(before);
      expect(await client("carol").status(sessionId)).toMatchObject({ waitingFor: "user_confirm" });
      const [mine] = (await client("alice").approvals()).filter((a) => a.sessionId === sessionId);
      expect(mine).toMatchObject({ toolCallId: callId, votes: 1, needed: 2, approvedByYou: true });

      // bob answers through the typed client
      const [ask] = (await client("bob").approvals()).filter((a) => a.sessionId === sessionId);
      expect(ask).toMatchObject({ votes: 1, needed: 2, approvedByYou: false, policy: POLICY });
      expect(await client("bob").answerApproval(ask!, true)).toEqual({ sessionId, replyId, approver: true });
      await settled(sessionId);
      expect(calls.count).toBe(before + 1);

      const records = await client("carol").decisions(sessionId);
      expect(records.map((r) => [r.outcome, r.actor, r.channel, r.policy])).toEqual([
        ["ask", "engine", "engine", POLICY],
        ["vote", "alice", "rest", POLICY],
        ["ask", "engine", "engine", POLICY],
        ["approve", "bob", "rest", POLICY],
      ]);
      expect(records.at(-1)?.approvers).toEqual(["alice", "bob"]);
      const status = await client("carol").status(sessionId);
      expect(status.waitingFor).toBeUndefined();

      // answered: out of every inbox, and out of reach again
      expect((await client("alice").approvals()).map((a) => a.sessionId)).not.toContain(sessionId);
      const again = await confirmAs("bob", sessionId, { answers: [{ toolCallId: callId, confirmed: true }] });
      expect(again.status).toBe(404);
      expect(calls.count).toBe(before + 1);
    });
  });
}
