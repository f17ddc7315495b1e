import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { type BaseEvent, HttpAgent } from "@ag-ui/client";
import { afterAll, describe, expect, it } from "vitest";
import { type RunningServer, startServer } from "../../src/app/server/start-server.js";
import type { Msg } from "../../src/message/index.js";
import { blocksOf } from "../../src/message/index.js";
import { ScriptedModel } from "../../src/testing/index.js";
import { tempDir } from "./helpers.js";

/**
 * Edited approvals in the service: whatever a person edits into an approved call (REST
 * `answers[].input`, `confirmResults[].toolCall.input`, AG-UI `editedArgs`) is decided again by the
 * engine, whose boundary is the session's workspace: an edit that reaches another user's files is
 * refused, in any mode, and touches nothing.
 */
describe("the service decides an edited approval again, inside the session's workspace", () => {
  const { dir: dataDir, cleanup } = tempDir("agentscope-gate-");
  let server: RunningServer;
  afterAll(async () => {
    await server?.close();
    cleanup();
  });
  const sessions = join(dataDir, "workspaces", "sessions");
  const aliceRoot = join(sessions, "s-alice-1");
  const write = (id: string, path: string) => ({ id, name: "Write", input: { path, content: "bob's" } });
  const model = new ScriptedModel([
    { toolCalls: [write("call_rest", "mine.txt")] },
    { text: "wrote" },
    { toolCalls: [{ id: "call_read", name: "Read", input: { path: "mine.txt" } }] },
    { text: "read" },
    { toolCalls: [write("call_cr", "mine.txt")] },
    { text: "wrote" },
    { toolCalls: [write("call_agui", "mine.txt")] },
    { text: "wrote" },
    { toolCalls: [write("call_rules", "mine.txt")] },
    { text: "wrote" },
  ]);

  const as = (token: string, init: RequestInit = {}): RequestInit => ({
    ...init,
    headers: { authorization: `Bearer ${token}`, "content-type": "application/json", ...init.headers },
  });
  const post = async (path: string, token: string, body: unknown) => {
    const res = await fetch(`${server.url}${path}`, {
      ...as(token, { method: "POST", body: JSON.stringify(body), headers: { accept: "text/event-stream" } }),
    });
    const text = await res.text();
    expect(res.status, text).toBe(res.status === 201 ? 201 : 200);
    return text;
  };
  const lastResults = async (session: string, token: string) => {
    const res = await fetch(`${server.url}/v1/sessions/${session}/messages`, as(token));
    const { messages } = (await res.json()) as { messages: Msg[] };
    return blocksOf(messages.at(-1)!, "tool_result").map((r) => ({
      state: r.state,
      output: String(r.output),
    }));
  };

  it("starts with alice's file in her workspace", async () => {
    server = await startServer({
      config: {
        agents: [
          {
            name: "worker",
            model,
            tools: ["Read", "Write"],
            permission: { mode: "default", ask: ["Read"] },
          },
        ],
      },
      store: `sqlite:${join(dataDir, "state.db")}`,
      port: 0,
      tokensEnv: "tok-alice:alice,tok-bob:bob",
      workspaces: { dataDir, sandbox: false },
    });
    mkdirSync(aliceRoot, { recursive: true });
    writeFileSync(join(aliceRoot, "notes.txt"), "alice-data");
    for (const [token, sessionId] of [
      ["tok-alice", "alice-1"],
      ["tok-bob", "bob-1"],
    ] as const) {
      const res = await fetch(
        `${server.url}/v1/sessions`,
        as(token, { method: "POST", body: JSON.stringify({ sessionId }) }),
      );
      expect(res.status).toBe(201);
    }
  });

  it("REST answers[].input: a Write edited into alice's workspace is refused and writes nothing", async () => {
    await post("/v1/sessions/bob-1/replies", "tok-bob", { text: "write" });
    const target = join(aliceRoot, "pwned.txt");
    await post("/v1/sessions/bob-1/confirm", "tok-bob", {
      answers: [
        {
          toolCallId: "call_rest",
          confirmed: true,
          input: JSON.stringify({ path: target, content: "bob's" }),
        },
      ],
    });
    expect(existsSync(target)).toBe(false);
    expect(await lastResults("bob-1", "tok-bob")).toEqual([
      { state: "denied", output: expect.stringContaining("outside this session's workspace") },
    ]);
  });

  it("REST answers[].input: a Read edited into alice's workspace is refused and reads nothing", async () => {
    await post("/v1/sessions/bob-1/replies", "tok-bob", { text: "read" });
    await post("/v1/sessions/bob-1/confirm", "tok-bob", {
      answers: [
        {
          toolCallId: "call_read",
          confirmed: true,
          input: JSON.stringify({ path: "../s-alice-1/notes.txt" }),
        },
      ],
    });
    const [result] = await lastResults("bob-1", "tok-bob");
    expect(result).toEqual({
      state: "denied",
      output: expect.stringContaining("outside this session's workspace"),
    });
    expect(result!.output).not.toContain("alice-data");
  });

  it("confirmResults[].toolCall.input: the same edit is refused", async () => {
    await post("/v1/sessions/bob-1/replies", "tok-bob", { text: "write" });
    const target = join(aliceRoot, "notes.txt");
    await post("/v1/sessions/bob-1/confirm", "tok-bob", {
      confirmResults: [
        {
          confirmed: true,
          toolCall: {
            id: "call_cr",
            name: "Write",
            input: JSON.stringify({ path: target, content: "bob's" }),
          },
        },
      ],
    });
    expect(readFileSync(target, "utf8")).toBe("alice-data");
    expect((await lastResults("bob-1", "tok-bob"))[0]?.state).toBe("denied");
  });

  it("AG-UI editedArgs: the same edit is refused", async () => {
    const agent = new HttpAgent({
      url: `${server.url}/v1/agui`,
      threadId: "bob-agui",
      headers: { authorization: "Bearer tok-bob" },
    });
    const run = async (params?: Parameters<HttpAgent["runAgent"]>[0]) => {
      const events: BaseEvent[] = [];
      await agent.runAgent(params, { onEvent: ({ event }) => void events.push(event) });
      return events;
    };
    agent.addMessage({ id: "u1", role: "user", content: "write" });
    await run();
    expect(agent.pendingInterrupts.map((i) => i.id)).toEqual(["confirm:call_agui"]);
    const target = join(aliceRoot, "agui.txt");
    await run({
      resume: [
        {
          interruptId: "confirm:call_agui",
          status: "resolved",
          payload: { approved: true, editedArgs: { path: target, content: "bob's" } },
        },
      ],
    });
    expect(existsSync(target)).toBe(false);
    const tool = agent.messages.find((m) => m.role === "tool");
    expect(tool).toMatchObject({
      toolCallId: "call_agui",
      content: expect.stringContaining("outside this session's workspace"),
    });
  });

  it("REST answers[].rules: a rule the ask did not offer is a 409 naming it, and nothing runs", async () => {
    await post("/v1/sessions/bob-1/replies", "tok-bob", { text: "write" });
    const res = await fetch(`${server.url}/v1/sessions/bob-1/confirm`, {
      ...as("tok-bob", {
        method: "POST",
        body: JSON.stringify({ answers: [{ toolCallId: "call_rules", confirmed: true, rules: ["Write"] }] }),
      }),
    });
    expect(res.status).toBe(409);
    expect(((await res.json()) as { error: { message: string } }).error.message).toMatch(
      /"Write", which the confirmation did not offer/,
    );
    const status = (await (await fetch(`${server.url}/v1/sessions/bob-1/status`, as("tok-bob"))).json()) as {
      waitingFor?: string;
    };
    expect(status.waitingFor).toBe("user_confirm");
    expect(existsSync(join(sessions, "s-bob-1", "mine.txt"))).toBe(false);
  });
});
