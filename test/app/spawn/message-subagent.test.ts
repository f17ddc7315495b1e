import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { type RunningServer, startServer } from "../../../src/app/server/start-server.js";
import { type Msg, textOf, userMsg } from "../../../src/message/index.js";
import type { ChatModel, ChatOptions } from "../../../src/model/core.js";
import { ScriptedModel, type ScriptedTurn } from "../../../src/testing/index.js";
import type { Tool } from "../../../src/tool/index.js";
import { gate } from "../../multiagent/helpers.js";
import { dropBackend } from "../../state/drop-backend.js";
import { missingService, reportMissingService, runName } from "../../support/services.js";

/** A model that plays `turn` on whatever it is sent (the same in every call). */
function modelOf(name: string, turn: (messages: Msg[]) => ScriptedTurn): ChatModel {
  const base = new ScriptedModel([]);
  return {
    name,
    provider: "scripted",
    contextSize: base.contextSize,
    countTokens: (messages, tools) => base.countTokens(messages, tools),
    stream: (messages: Msg[], opts?: ChatOptions) =>
      new ScriptedModel([turn(messages)]).stream(messages, opts),
  };
}

const lastResult = (messages: Msg[]) => {
  const last = messages.filter((m) => m.content.length > 0).at(-1);
  return last?.role === "assistant" ? last.content.findLast((b) => b.type === "tool_result") : undefined;
};

/** Spawns "helper" and waits; then messages it and waits; then says what it answered. */
const parentModel = modelOf("parent", (messages) => {
  const result = lastResult(messages);
  if (!result)
    return {
      toolCalls: [
        {
          name: "agent_spawn",
          input: { template: "helper", prompt: "first", label: "helper", timeout_seconds: 600 },
        },
      ],
    };
  if (result.type === "tool_result" && result.name === "agent_spawn")
    return {
      toolCalls: [
        { name: "agent_message", input: { subagent_id: "sub_1", text: "second", timeout_seconds: 600 } },
      ],
    };
  return { text: `Done: ${result.type === "tool_result" ? String(result.output) : ""}` };
});

/** Answers the last user text at once; with a `hold` tool, holds the first reply until `open`. */
function helperModel(hold: boolean): ChatModel {
  return modelOf("helper", (messages) => {
    const said = textOf(messages.findLast((m) => m.role === "user")!);
    if (hold && said === "first" && !lastResult(messages))
      return { toolCalls: [{ name: "hold", input: {} }] };
    return { text: `answer to ${said}` };
  });
}

async function serve(store: string, helper: ChatModel, tools: Tool[], prefix?: string) {
  return startServer({
    config: {
      agents: [
        {
          name: "main",
          model: parentModel,
          spawn: { templates: [{ name: "helper", description: "Answers", agent: "helper" }] },
        },
        { name: "helper", model: helper, tools },
      ],
    },
    store,
    port: 0,
    tokensEnv: "",
    withoutOptionalRoutes: true,
    ...(prefix ? { backend: { prefix } } : {}),
  });
}

/** Runs a reply of the parent to its end; its last message's text. */
async function replyOf(server: RunningServer, sessionId: string): Promise<string> {
  const run = await server.runtime.startReply("local", sessionId, [userMsg("go")]);
  await run.done;
  const messages = await server.runtime.messages("local", sessionId);
  return textOf(messages.at(-1)!);
}

const dir = mkdtempSync(join(tmpdir(), "agentscope-message-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("agent_message in the service", () => {
  it("is a new reply in the sub-agent's own session (a user turn from the parent), and the parent gets its answer", async () => {
    const server = await serve(`sqlite:${join(dir, "state.db")}`, helperModel(false), []);
    try {
      const { sessionId } = await server.runtime.createSession("local", { agent: "main" });
      expect(await replyOf(server, sessionId)).toBe("Done: answer to second");
      const child = await server.runtime.messages("local", `${sessionId}.sub_1`);
      expect(child.map((m) => [m.role, textOf(m)])).toEqual([
        ["user", "first"],
        ["assistant", "answer to first"],
        ["user", "second"],
        ["assistant", "answer to second"],
      ]);
      expect(child[2]!.metadata).toMatchObject({ from: "parent", parentSessionId: sessionId });
    } finally {
      await server.close();
    }
  }, 30_000);
});

const pgMissing = await missingService("PostgreSQL", 5432);
describe("a waiting spawn on PostgreSQL", () => {
  if (pgMissing) {
    reportMissingService(pgMissing);
    return;
  }
  const store = "postgres://postgres@127.0.0.1:5432/test";
  const prefix = `${runName("wake").replace(/\W/g, "_")}_`;
  afterAll(() => dropBackend(store, prefix));

  it("is woken by the sub-agent's end (no poll): the sub-agent's state is not read while it works", async () => {
    const held = gate();
    const server = await serve(store, helperModel(true), [held.hold], prefix);
    try {
      const { sessionId } = await server.runtime.createSession("local", { agent: "main" });
      const childId = `${sessionId}.sub_1`;
      // Count the reads of the sub-agent's state (the waiting spawn's only way to learn its end).
      const backendStore = server.runtime.backend.store;
      const load = backendStore.load.bind(backendStore);
      let reads = 0;
      backendStore.load = (id, ...rest) => {
        if (id === childId) reads++;
        return load(id, ...rest);
      };
      const reply = replyOf(server, sessionId);
      await held.reached;
      // The spawn waits while the sub-agent's tool holds: give a poller time to show itself.
      const before = reads;
      await new Promise((resolve) => setTimeout(resolve, 1_000));
      // A 100 ms poll would have read it about ten times by now; a woken waiter not at all.
      expect(reads - before).toBe(0);
      held.open();
      // Without a wake-up the next look would come only from the 30 s safety check: past this test's timeout.
      expect(await reply).toBe("Done: answer to second");
    } finally {
      await server.close();
    }
  }, 20_000);
});
