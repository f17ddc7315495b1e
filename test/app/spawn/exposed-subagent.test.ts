import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { startServer } from "../../../src/app/server/start-server.js";
import type { AgentEvent } from "../../../src/event/index.js";
import type { Msg } from "../../../src/message/index.js";
import { conversationModel, recordTool } from "../fixtures/agents.js";
import { spawningModel } from "../fixtures/spawn-agents.js";
import { json, readSse } from "../helpers.js";

const dir = mkdtempSync(join(tmpdir(), "agentscope-exposed-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Polls `read` until `test` holds (the runs are asynchronous; no timing is asserted). */
async function until<T>(read: () => Promise<T>, test: (value: T) => boolean, what: string): Promise<T> {
  for (let i = 0; i < 200; i++) {
    const value = await read();
    if (test(value)) return value;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`timed out waiting for ${what}`);
}

const lastText = (messages: Msg[]) =>
  messages
    .at(-1)
    ?.content.flatMap((b) => (b.type === "text" ? [b.text] : []))
    .join("") ?? "";

describe("an exposed sub-agent in the service", () => {
  it("is a session of its owner (listed with its parent, streamed, answered), 404 for others; its result reaches the parent", async () => {
    const server = await startServer({
      config: {
        agents: [
          {
            name: "main",
            model: spawningModel(),
            spawn: { templates: [{ name: "helper", description: "Records notes", agent: "helper" }] },
          },
          { name: "helper", model: conversationModel(), tools: [recordTool()] },
        ],
      },
      store: `sqlite:${join(dir, "state.db")}`,
      port: 0,
      tokensEnv: "tok-a:alice,tok-b:bob",
      withoutOptionalRoutes: true,
    });
    const call = (method: string, path: string, token: string, body?: unknown) =>
      fetch(`${server.url}${path}`, {
        method,
        headers: {
          authorization: `Bearer ${token}`,
          ...(body ? { "content-type": "application/json" } : {}),
        },
        ...(body ? { body: JSON.stringify(body) } : {}),
      });
    try {
      const { sessionId } = await json(call("POST", "/v1/sessions", "tok-a", { agent: "main" }));
      expect(
        (await call("POST", `/v1/sessions/${sessionId}/replies`, "tok-a", { text: "spawn helper exposed" }))
          .status,
      ).toBe(202);
      const parentEvents = await readSse(
        await call("GET", `/v1/sessions/${sessionId}/events`, "tok-a"),
        (f) => f.data?.type === "REPLY_END" && f.data.source === undefined,
        15_000,
      );
      const exposed = parentEvents.frames.find((f) => f.data?.type === "SUBAGENT_EXPOSED")
        ?.data as AgentEvent & {
        toolCallId: string;
      };
      const childId = `${sessionId}.sub_1`;
      const spawnCall = parentEvents.frames.find(
        (f) =>
          f.data?.type === "TOOL_CALL_START" &&
          (f.data as { toolCallName?: string }).toolCallName === "agent_spawn",
      );
      expect(exposed).toMatchObject({
        subagentId: "sub_1",
        agentId: "helper",
        sessionId: childId,
        label: "helper",
      });
      expect(exposed.toolCallId).toBe((spawnCall?.data as { toolCallId?: string } | undefined)?.toolCallId);

      // Listed for its owner, linked to its parent; opened with the spawning call.
      const list = await json(call("GET", "/v1/sessions", "tok-a"));
      expect(list.sessions.find((s: { sessionId: string }) => s.sessionId === childId)).toMatchObject({
        owner: "alice",
        agent: "helper",
        parent: { sessionId, subagentId: "sub_1", label: "helper" },
      });
      expect((await json(call("GET", `/v1/sessions/${childId}`, "tok-a"))).parent).toMatchObject({
        sessionId,
        toolCallId: exposed.toolCallId,
      });

      // Another user: not listed, and every route is a 404.
      const theirs = await json(call("GET", "/v1/sessions", "tok-b"));
      expect(theirs.sessions.map((s: { sessionId: string }) => s.sessionId)).not.toContain(childId);
      expect((await call("GET", `/v1/sessions/${childId}`, "tok-b")).status).toBe(404);
      expect((await call("GET", `/v1/sessions/${childId}/events`, "tok-b")).status).toBe(404);
      expect((await call("POST", `/v1/sessions/${childId}/replies`, "tok-b", { text: "hi" })).status).toBe(
        404,
      );

      // The owner streams it: the template's mode (the agent's default) asks before `record`.
      const asked = await readSse(
        await call("GET", `/v1/sessions/${childId}/events`, "tok-a"),
        (f) => f.data?.type === "REQUIRE_USER_CONFIRM",
        15_000,
      );
      const ask = asked.frames.find((f) => f.data?.type === "REQUIRE_USER_CONFIRM")!.data as {
        toolCalls: Array<{ id: string }>;
      };
      expect(
        (
          await call("POST", `/v1/sessions/${childId}/confirm`, "tok-b", {
            answers: [{ toolCallId: ask.toolCalls[0]!.id, confirmed: true }],
          })
        ).status,
      ).toBe(404);
      expect(
        (
          await call("POST", `/v1/sessions/${childId}/confirm`, "tok-a", {
            answers: [{ toolCallId: ask.toolCalls[0]!.id, confirmed: true }],
          })
        ).status,
      ).toBe(202);

      // Its result reaches the parent: the parent's reply had ended, so a follow-up reply reads it.
      const messages = await until(
        async () =>
          (await json(call("GET", `/v1/sessions/${sessionId}/messages`, "tok-a"))).messages as Msg[],
        (m) => lastText(m).startsWith("The sub-agent said:"),
        "the parent's follow-up",
      );
      expect(lastText(messages)).toContain("Recorded, all done.");
      // The owner then talks to it like any session.
      expect((await call("POST", `/v1/sessions/${childId}/replies`, "tok-a", { text: "again" })).status).toBe(
        202,
      );
    } finally {
      await server.close();
    }
  }, 60_000);
});
