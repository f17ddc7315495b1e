import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type BaseEvent, HttpAgent } from "@ag-ui/client";
import { afterAll, describe, expect, it } from "vitest";
import { startServer } from "../../../src/app/server/start-server.js";
import { ScriptedModel } from "../../../src/testing/index.js";
import { conversationModel, recordTool } from "../fixtures/agents.js";

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
    const server = await startServer({
      config: {
        agents: [
          {
            name: "main",
            model: new ScriptedModel([
              { toolCalls: [{ name: "research", input: { prompt: "record a note" } }] },
              { text: "main done" },
            ]),
            subagents: [{ agent: "researcher", name: "research", description: "Records notes" }],
          },
          { name: "researcher", model: conversationModel(), tools: [recordTool()] },
        ],
      },
      store: `sqlite:${join(dir, "state.db")}`,
      port: 0,
      tokensEnv: "tok-a:alice",
    });
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
