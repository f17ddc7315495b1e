import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type BaseEvent, HttpAgent } from "@ag-ui/client";
import { afterAll, describe, expect, it } from "vitest";
import { startSubagentServer } from "./subagent-server.js";

const dir = mkdtempSync(join(tmpdir(), "agentscope-agui-channel-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

type Interrupt = { id: string; toolCallId?: string; metadata?: { agentscope?: Record<string, unknown> } };

async function run(agent: HttpAgent, params?: Parameters<HttpAgent["runAgent"]>[0]): Promise<BaseEvent[]> {
  const events: BaseEvent[] = [];
  await agent.runAgent(params, { onEvent: ({ event }) => void events.push(event) });
  return events;
}

const finished = (events: BaseEvent[]) =>
  events.find((e) => e.type === "RUN_FINISHED") as
    | (BaseEvent & { outcome: { type: string; interrupts?: Interrupt[] } })
    | undefined;

describe("AG-UI channel: a sub-agent's confirmation", () => {
  it("reaches the @ag-ui/client HttpAgent as an interrupt; its resume answers the sub-run, recorded as agui by the user", async () => {
    const { server, calls } = await startSubagentServer(`sqlite:${join(dir, "state.db")}`);
    try {
      const agent = new HttpAgent({
        url: `${server.url}/v1/agui`,
        threadId: "agui-channel-thread",
        headers: { authorization: "Bearer tok-a" },
      });
      agent.addMessage({ id: "u1", role: "user", content: "research it" });
      const first = await run(agent, { runId: "r1", forwardedProps: { agent: "main" } });
      const outcome = finished(first)?.outcome;
      expect(outcome?.type).toBe("interrupt");
      const interrupt = outcome!.interrupts![0]!;
      expect(outcome!.interrupts).toHaveLength(1);
      expect(interrupt.id).toBe(`confirm:${interrupt.toolCallId}`);
      expect(interrupt.metadata?.agentscope).toMatchObject({
        sessionId: "agui-channel-thread",
        source: "main/research",
        toolCallId: interrupt.toolCallId,
        toolName: "record",
        input: JSON.stringify({ note: "hello" }),
      });

      // Hostile resumes run nothing: an interrupt id naming a session the thread never spawned, and
      // bob answering alice's thread (raw requests: the client itself would refuse the first).
      const resumeAs = (token: string, interruptId: string) =>
        fetch(`${server.url}/v1/agui`, {
          method: "POST",
          headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
          body: JSON.stringify({
            threadId: "agui-channel-thread",
            runId: `r-${token}`,
            messages: [],
            tools: [],
            context: [],
            state: {},
            forwardedProps: {},
            resume: [{ interruptId, status: "resolved", payload: { approved: true } }],
          }),
        }).then(async (response) => ({ status: response.status, body: await response.text() }));
      const forged = await resumeAs("tok-a", `confirm:someone-else.sub_1:${interrupt.toolCallId}`);
      expect(forged.body).toContain("RUN_ERROR");
      expect(forged.body).toContain("someone-else.sub_1");
      const asBob = await resumeAs("tok-b", interrupt.id);
      expect(asBob.status === 200 && !asBob.body.includes("RUN_ERROR")).toBe(false);
      expect(calls.count).toBe(0);

      const second = await run(agent, {
        runId: "r2",
        resume: [{ interruptId: interrupt.id, status: "resolved", payload: { approved: true } }],
      });
      expect(finished(second)?.outcome.type).toBe("success");
      const text = second
        .filter((e) => e.type === "TEXT_MESSAGE_CONTENT")
        .map((e) => (e as BaseEvent & { delta: string }).delta)
        .join("");
      expect(text).toBe("main done");
      expect(calls.count).toBe(1);

      const response = await fetch(`${server.url}/v1/sessions/agui-channel-thread/decisions`, {
        headers: { authorization: "Bearer tok-a" },
      });
      const { decisions } = (await response.json()) as { decisions: Array<Record<string, unknown>> };
      const answer = decisions.find((d) => d.toolCallId === interrupt.toolCallId && d.outcome === "approve");
      expect(answer).toMatchObject({
        channel: "agui",
        actor: "alice",
        source: "main/research",
        toolName: "record",
      });
    } finally {
      await server.close();
    }
  });
});
