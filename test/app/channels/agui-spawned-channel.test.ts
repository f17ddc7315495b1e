import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type BaseEvent, HttpAgent } from "@ag-ui/client";
import { afterAll, describe, expect, it } from "vitest";
import { startSpawnServer } from "./subagent-server.js";

/**
 * Issue 39 item 7: an AG-UI client sees and answers the confirmation of a sub-agent its thread
 * spawned (`agent_spawn`, exposed to the user, in the background), as an interrupt of the thread.
 */

const dir = mkdtempSync(join(tmpdir(), "agentscope-agui-spawned-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

type Interrupt = { id: string; toolCallId?: string; metadata?: { agentscope?: Record<string, unknown> } };
const THREAD = "agui-spawn-thread";
const CHILD = `${THREAD}.sub_1`;

async function run(agent: HttpAgent, params?: Parameters<HttpAgent["runAgent"]>[0]): Promise<BaseEvent[]> {
  const events: BaseEvent[] = [];
  await agent.runAgent(params, { onEvent: ({ event }) => void events.push(event) });
  return events;
}

const outcomeOf = (events: BaseEvent[]) =>
  (
    events.find((e) => e.type === "RUN_FINISHED") as BaseEvent & {
      outcome?: { type: string; interrupts?: Interrupt[] };
    }
  )?.outcome;

/** Polls `read` until `test` holds (the spawned run is asynchronous; no timing is asserted). */
async function until<T>(read: () => Promise<T>, test: (value: T) => boolean, what: string): Promise<T> {
  for (let i = 0; i < 200; i++) {
    const value = await read();
    if (test(value)) return value;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`timed out waiting for ${what}`);
}

describe("AG-UI channel: a spawned sub-agent's confirmation", () => {
  it("is an interrupt of the thread naming the spawned session; only its owner's resume runs the tool, once", async () => {
    const { server, calls } = await startSpawnServer(`sqlite:${join(dir, "state.db")}`, "main");
    const decisionsOf = async (sessionId: string) => {
      const response = await fetch(`${server.url}/v1/sessions/${sessionId}/decisions`, {
        headers: { authorization: "Bearer tok-a" },
      });
      return response.ok
        ? ((await response.json()) as { decisions: Array<Record<string, unknown>> }).decisions
        : [];
    };
    try {
      const agent = new HttpAgent({
        url: `${server.url}/v1/agui`,
        threadId: THREAD,
        headers: { authorization: "Bearer tok-a" },
      });
      agent.addMessage({ id: "u1", role: "user", content: "spawn a helper" });
      const first = await run(agent, { runId: "r1", forwardedProps: { agent: "main" } });
      await until(
        () => decisionsOf(CHILD),
        (d) => d.some((r) => r.outcome === "ask"),
        "the helper's ask",
      );
      // The helper asks in its own session: before the thread's run ended, that run ends on it;
      // after, the thread's next run does. Either way it is an interrupt naming the spawned session.
      let outcome = outcomeOf(first);
      if (outcome?.type !== "interrupt") {
        agent.addMessage({ id: "u2", role: "user", content: "how is it going?" });
        outcome = outcomeOf(await run(agent, { runId: "r2" }));
      }
      expect(outcome?.type).toBe("interrupt");
      expect(outcome?.interrupts).toHaveLength(1);
      const interrupt = outcome!.interrupts![0]!;
      expect(interrupt.id).toBe(`confirm:${CHILD}:${interrupt.toolCallId}`);
      expect(interrupt.metadata?.agentscope).toMatchObject({
        sessionId: CHILD,
        subagentId: "sub_1",
        toolName: "record",
        input: JSON.stringify({ note: "hello" }),
      });

      // Bob answering alice's thread runs nothing.
      const asBob = await fetch(`${server.url}/v1/agui`, {
        method: "POST",
        headers: { authorization: "Bearer tok-b", "content-type": "application/json" },
        body: JSON.stringify({
          threadId: THREAD,
          runId: "r-bob",
          messages: [],
          tools: [],
          context: [],
          state: {},
          forwardedProps: {},
          resume: [{ interruptId: interrupt.id, status: "resolved", payload: { approved: true } }],
        }),
      });
      const bobBody = await asBob.text();
      expect(asBob.status === 200 && !bobBody.includes("RUN_ERROR")).toBe(false);
      expect(calls.count).toBe(0);

      // Alice's resume answers the helper's session: its tool runs once, recorded as agui by alice.
      const third = await run(agent, {
        runId: "r3",
        resume: [{ interruptId: interrupt.id, status: "resolved", payload: { approved: true } }],
      });
      expect(third.some((e) => e.type === "RUN_ERROR")).toBe(false);
      await until(
        () => decisionsOf(CHILD),
        (d) => d.some((r) => r.outcome === "approve"),
        "the helper's approval",
      );
      expect(calls.count).toBe(1);
      const approval = (await decisionsOf(CHILD)).find((r) => r.outcome === "approve");
      expect(approval).toMatchObject({ channel: "agui", actor: "alice", toolName: "record" });
    } finally {
      await server.close();
    }
  });
});
