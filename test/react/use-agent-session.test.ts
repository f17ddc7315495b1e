import { act, cleanup, renderHook, waitFor } from "@testing-library/react";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { startServer } from "../../src/app/server/start-server.js";
import { AgentScopeClient } from "../../src/client/index.js";
import { useAgentSession } from "../../src/react/index.js";
import { conversationModel, recordTool } from "../app/fixtures/agents.js";
import { closePage } from "./dom.js";

const cleanups: Array<() => Promise<void> | void> = [];
afterAll(closePage);
afterEach(async () => {
  cleanup();
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

const ANSWER = `Recorded. ${"This answer streams in many small deltas. ".repeat(6)}Done.`;

async function setup(delayMs = 0) {
  const calls = { count: 0 };
  const server = await startServer({
    config: {
      agents: [
        {
          name: "main",
          model: conversationModel({ delayMs, text: ANSWER }),
          tools: [recordTool(undefined, calls)],
        },
      ],
    },
    store: "memory:",
    port: 0,
    tokensEnv: "",
    withoutOptionalRoutes: true,
  });
  cleanups.push(() => server.close());
  const client = new AgentScopeClient({ baseUrl: server.url, retry: { initialDelayMs: 20 } });
  return { client, calls, server };
}

const textOf = (msg: { content: Array<{ type: string; text?: string }> } | undefined) =>
  (msg?.content ?? [])
    .filter((b) => b.type === "text")
    .map((b) => b.text)
    .join("");

describe("useAgentSession in a DOM test renderer", () => {
  it("loads history, sends, shows the approval, approves with edited arguments and ends idle with the stored messages", async () => {
    const { client, calls } = await setup();
    const { sessionId } = await client.createSession();
    const { result } = renderHook(() => useAgentSession({ client, sessionId }));
    await waitFor(() => expect(result.current.status).toBe("idle"));
    expect(result.current.messages).toEqual([]);

    await act(() => result.current.send("record hello"));
    await waitFor(() => expect(result.current.status).toBe("waiting"));
    expect(result.current.messages[0]).toMatchObject({ role: "user" });
    expect(textOf(result.current.messages[0])).toBe("record hello");
    const [approval] = result.current.pendingApprovals;
    expect(approval).toMatchObject({ name: "record" });

    await act(() => result.current.approve(approval!.id, { input: JSON.stringify({ note: "edited" }) }));
    await waitFor(() => expect(result.current.status).toBe("idle"));
    expect(calls.count).toBe(1);
    expect(result.current.pendingApprovals).toEqual([]);
    expect(result.current.messages).toEqual(await client.messages(sessionId));
    expect(textOf(result.current.messages.at(-1))).toBe(ANSWER);
  });

  it("deny refuses the call: the tool never runs and the reply still ends", async () => {
    const { client, calls } = await setup();
    const { sessionId } = await client.createSession();
    const { result } = renderHook(() => useAgentSession({ client, sessionId }));
    await waitFor(() => expect(result.current.status).toBe("idle"));
    await act(() => result.current.send("record hello"));
    await waitFor(() => expect(result.current.pendingApprovals).toHaveLength(1));
    await act(() => result.current.deny(result.current.pendingApprovals[0]!.id, "not now"));
    await waitFor(() => expect(result.current.status).toBe("idle"));
    expect(calls.count).toBe(0);
    const results = result.current.messages.at(-1)!.content.filter((b) => b.type === "tool_result");
    expect(results[0]).toMatchObject({ state: "denied" });
  });

  it("mounted mid-reply (a page reload), it follows the running reply to its end; stop interrupts a reply", async () => {
    const { client } = await setup(25);
    const { sessionId } = await client.createSession();
    await client.send(sessionId, "record hello").collect();
    const approval = (await client.status(sessionId)).pendingToolCalls[0]!;
    const run = client.confirm(sessionId, { answers: [{ toolCallId: approval.id, confirmed: true }] });
    const iterator = run[Symbol.asyncIterator]();
    await iterator.next();
    run.close();

    const { result } = renderHook(() => useAgentSession({ client, sessionId }));
    await waitFor(() => expect(result.current.status).toBe("running"));
    await waitFor(() => expect(result.current.status).toBe("idle"), { timeout: 10_000 });
    expect(textOf(result.current.messages.at(-1))).toBe(ANSWER);
    expect(result.current.messages).toEqual(await client.messages(sessionId));

    await act(async () => {
      void result.current.send("record again");
    });
    await waitFor(() => expect(result.current.status).toBe("waiting"));
    const second = result.current.pendingApprovals[0]!;
    let approving: Promise<void> | undefined;
    act(() => {
      approving = result.current.approve(second.id);
    });
    await waitFor(() => expect(result.current.status).toBe("running"));
    await act(() => result.current.stop("changed my mind"));
    await act(async () => {
      await approving;
    });
    await waitFor(() => expect(result.current.status).toBe("idle"));
    expect(result.current.messages.at(-1)).toMatchObject({ finishedReason: "interrupted" });
  });
});
