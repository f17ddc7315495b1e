import { act, cleanup, renderHook, waitFor } from "@testing-library/react";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { startServer } from "../../src/app/server/start-server.js";
import { AgentScopeClient } from "../../src/client/index.js";
import type { Msg } from "../../src/message/index.js";
import type { ChatModel } from "../../src/model/core.js";
import { useAgentSession } from "../../src/react/index.js";
import { ScriptedModel } from "../../src/testing/index.js";
import { closePage } from "./dom.js";

const cleanups: Array<() => Promise<void> | void> = [];
afterAll(closePage);
afterEach(async () => {
  cleanup();
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

const textOf = (msg: Msg | undefined) =>
  (msg?.content ?? []).map((b) => (b.type === "text" ? b.text : "")).join("");

/** Answers "echo: <the last user text>". */
function echoModel(): ChatModel {
  const base = new ScriptedModel([]);
  return {
    name: "echo",
    provider: "scripted",
    contextSize: base.contextSize,
    countTokens: (messages, tools) => base.countTokens(messages, tools),
    stream: (messages, opts) =>
      new ScriptedModel([{ text: `echo: ${textOf(messages.findLast((m) => m.role === "user"))}` }]).stream(
        messages,
        opts,
      ),
  };
}

async function setup(checkpoints = true) {
  const server = await startServer({
    config: { agents: [{ name: "main", model: echoModel() }] },
    store: "memory:",
    port: 0,
    tokensEnv: "",
    withoutOptionalRoutes: true,
    workspaces: false,
    checkpoints: checkpoints ? {} : false,
  });
  cleanups.push(() => server.close());
  return new AgentScopeClient({ baseUrl: server.url, retry: { initialDelayMs: 20 } });
}

const texts = (messages: Msg[]) => messages.map(textOf);

describe("useAgentSession's time travel in a DOM test renderer", () => {
  it("edits a message into a second version, switches between both intact, rewinds and undoes", async () => {
    const client = await setup();
    const { sessionId } = await client.createSession();
    const { result } = renderHook(() => useAgentSession({ client, sessionId }));
    await waitFor(() => expect(result.current.status).toBe("idle"));
    await act(() => result.current.send("one"));
    await act(() => result.current.send("two"));
    await waitFor(() => expect(result.current.timeTravel.checkpoints?.checkpoints.length).toBe(3));
    const second = result.current.messages[2]!;
    expect(result.current.timeTravel.branchesOf(second.id)).toBeUndefined();

    await act(() => result.current.timeTravel.editMessage(second.id, "deux"));
    await waitFor(() =>
      expect(texts(result.current.messages)).toEqual(["one", "echo: one", "deux", "echo: deux"]),
    );
    await waitFor(() => expect(result.current.status).toBe("idle"));
    const edited = result.current.messages[2]!;
    await waitFor(() =>
      expect(result.current.timeTravel.branchesOf(edited.id)).toMatchObject({ current: 2 }),
    );
    expect(result.current.timeTravel.branchesOf(edited.id)?.tips).toHaveLength(2);
    expect(result.current.timeTravel.branchesOf(result.current.messages[0]!.id)).toBeUndefined();

    // version 1, intact; then version 2, intact
    await act(async () => {
      await result.current.timeTravel.switchBranch(edited.id, 1);
    });
    await waitFor(() =>
      expect(texts(result.current.messages)).toEqual(["one", "echo: one", "two", "echo: two"]),
    );
    await waitFor(() =>
      expect(result.current.timeTravel.branchesOf(second.id)).toMatchObject({ current: 1 }),
    );
    await act(async () => {
      await result.current.timeTravel.switchBranch(second.id, 2);
    });
    await waitFor(() =>
      expect(texts(result.current.messages)).toEqual(["one", "echo: one", "deux", "echo: deux"]),
    );
    expect(await client.messages(sessionId)).toEqual(result.current.messages);

    // a rewind to the first turn, undone
    const first = result.current.timeTravel.checkpoints!.checkpoints.find(
      (c) => c.lastMessage?.id === result.current.messages[1]!.id && c.kind === "reply_end",
    )!;
    let undo = "";
    await act(async () => {
      undo = (await result.current.timeTravel.rewind(first.id)).undo;
    });
    await waitFor(() => expect(texts(result.current.messages)).toEqual(["one", "echo: one"]));
    await act(async () => {
      await result.current.timeTravel.rewind(undo);
    });
    await waitFor(() =>
      expect(texts(result.current.messages)).toEqual(["one", "echo: one", "deux", "echo: deux"]),
    );
  });

  it("forks a checkpoint into a new session the hook can open; the origin stays as it was", async () => {
    const client = await setup();
    const { sessionId } = await client.createSession({ title: "origin" });
    const { result, rerender } = renderHook(({ id }) => useAgentSession({ client, sessionId: id }), {
      initialProps: { id: sessionId as string },
    });
    await waitFor(() => expect(result.current.status).toBe("idle"));
    await act(() => result.current.send("one"));
    await act(() => result.current.send("two"));
    await waitFor(() => expect(result.current.timeTravel.checkpoints?.checkpoints.length).toBe(3));
    const afterOne = result.current.timeTravel.checkpoints!.checkpoints[1]!;

    let fork = "";
    await act(async () => {
      fork = (await result.current.timeTravel.fork(afterOne.id, { title: "forked" })).sessionId;
    });
    await act(async () => rerender({ id: fork }));
    await waitFor(() => expect(texts(result.current.messages)).toEqual(["one", "echo: one"]));
    expect(texts(await client.messages(sessionId))).toEqual(["one", "echo: one", "two", "echo: two"]);
    await waitFor(() =>
      expect(result.current.timeTravel.checkpoints?.head.origin).toEqual({
        sessionId,
        checkpoint: afterOne.id,
      }),
    );
    await act(() => result.current.send("three"));
    expect(texts(result.current.messages)).toEqual(["one", "echo: one", "three", "echo: three"]);
    // the fork's own checkpoints: the fork and its reply (the origin keeps its three)
    await waitFor(() =>
      expect(result.current.timeTravel.checkpoints?.checkpoints.map((c) => c.kind)).toEqual([
        "fork",
        "reply_end",
      ]),
    );
  });

  it("on a server without checkpoints there are none, and a rewind fails with the service's reason in error", async () => {
    const client = await setup(false);
    const { sessionId } = await client.createSession();
    const { result } = renderHook(() => useAgentSession({ client, sessionId }));
    await waitFor(() => expect(result.current.status).toBe("idle"));
    expect(result.current.timeTravel.checkpoints).toBeUndefined();
    await act(async () => {
      await result.current.timeTravel.rewind("cp-1").catch(() => {});
    });
    expect(result.current.error?.message).toContain("keeps no checkpoints");
  });
});
