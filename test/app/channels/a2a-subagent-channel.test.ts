import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type Message, type Part, Role, TaskState } from "@a2a-js/sdk";
import {
  ClientFactory,
  ClientFactoryOptions,
  DefaultAgentCardResolver,
  JsonRpcTransportFactory,
} from "@a2a-js/sdk/client";
import { afterAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { REQUESTS_KEY } from "../../../src/app/a2a/task-events.js";
import { startServer } from "../../../src/app/server/start-server.js";
import { ScriptedModel } from "../../../src/testing/index.js";
import { functionTool, type Tool } from "../../../src/tool/index.js";
import { startSpawnServer, startSubagentServer } from "./subagent-server.js";

const dir = mkdtempSync(join(tmpdir(), "agentscope-a2a-channel-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const authFetch: typeof fetch = (input, init) => {
  const headers = new Headers(init?.headers);
  headers.set("Authorization", "Bearer tok-a");
  return fetch(input, { ...init, headers });
};

function message(parts: Part[], extra: Partial<Message> = {}): Message {
  return {
    messageId: `m-${Math.random().toString(36).slice(2)}`,
    contextId: "",
    taskId: "",
    role: Role.ROLE_USER,
    parts,
    metadata: undefined,
    extensions: [],
    referenceTaskIds: [],
    ...extra,
  };
}
const text = (value: string): Part => ({
  content: { $case: "text", value },
  metadata: undefined,
  filename: "",
  mediaType: "text/plain",
});
const data = (value: unknown): Part => ({
  content: { $case: "data", value },
  metadata: undefined,
  filename: "",
  mediaType: "application/json",
});

// biome-ignore lint/suspicious/noExplicitAny: the SDK's stream responses are a tagged union read loosely here
type Payload = { $case: string; value: any };

/** A tool that asks first and may run alongside others (one batch asks together); `ran.count` counts runs. */
const askingTool = (name: string, ran: { count: number }) =>
  functionTool({
    name,
    description: `${name} a note.`,
    concurrencySafe: true,
    suggestRules: () => [name],
    input: z.object({ note: z.string() }),
    execute: () => {
      ran.count += 1;
      return `${name} done`;
    },
  }) as Tool;

const stateOf = (p: Payload) => p.value.status?.state as TaskState | undefined;

/** The SDK client of the server's `main` agent, as alice: `stream` sends a message and collects the updates. */
async function clientOf(url: string, agent = "main") {
  const factory = new ClientFactory(
    ClientFactoryOptions.createFrom(ClientFactoryOptions.default, {
      transports: [new JsonRpcTransportFactory({ fetchImpl: authFetch })],
      cardResolver: new DefaultAgentCardResolver({ fetchImpl: authFetch }),
    }),
  );
  const client = await factory.createFromUrl(`${url}/v1/a2a/${agent}/`);
  return async (msg: Message) => {
    const out: Payload[] = [];
    for await (const update of client.sendMessageStream({ message: msg } as never))
      out.push((update as { payload: Payload }).payload);
    return out;
  };
}

/** The `agentscope.requests` of an input-required status. */
function requestsOf(payload: Payload): Array<Record<string, unknown>> {
  const parts = payload.value.status.message.parts as Part[];
  const value = parts.flatMap((p) => (p.content?.$case === "data" ? [p.content.value] : []))[0];
  return (value as Record<string, Array<Record<string, unknown>>>)[REQUESTS_KEY]!;
}

describe("A2A channel: a sub-agent's confirmation", () => {
  it("is the input-required request (call id, tool, input, reason); the SDK client's answer resumes the reply, recorded as a2a by the user", async () => {
    const { server, calls } = await startSubagentServer(`sqlite:${join(dir, "state.db")}`);
    try {
      const stream = await clientOf(server.url);

      const first = await stream(message([text("research it")]));
      const paused = first.at(-1)!.value;
      expect(stateOf(first.at(-1)!)).toBe(TaskState.TASK_STATE_INPUT_REQUIRED);
      const asked = requestsOf(first.at(-1)!);
      expect(asked).toHaveLength(1);
      expect(asked[0]).toMatchObject({
        toolName: "record",
        input: JSON.stringify({ note: "hello" }),
        source: "main/research",
        sessionId: `a2a.main.${paused.contextId}`,
      });
      expect(typeof asked[0]!.toolCallId).toBe("string");

      expect(calls.count).toBe(0);

      const second = await stream(
        message([data({ confirmResults: [{ toolCallId: asked[0]!.toolCallId, confirmed: true }] })], {
          taskId: paused.taskId,
          contextId: paused.contextId,
        }),
      );
      expect(stateOf(second.at(-1)!)).toBe(TaskState.TASK_STATE_COMPLETED);
      expect(second.at(-1)!.value.status.message.parts[0].content.value).toBe("main done");
      expect(calls.count).toBe(1);

      const response = await authFetch(`${server.url}/v1/sessions/a2a.main.${paused.contextId}/decisions`);
      const { decisions } = (await response.json()) as { decisions: Array<Record<string, unknown>> };
      const ask = decisions.find((d) => d.toolCallId === asked[0]!.toolCallId && d.outcome === "ask");
      expect(ask).toMatchObject({ source: "main/research" });
      const answer = decisions.find((d) => d.toolCallId === asked[0]!.toolCallId && d.outcome === "approve");
      expect(answer).toMatchObject({
        channel: "a2a",
        actor: "alice",
        source: "main/research",
        toolName: "record",
      });
    } finally {
      await server.close();
    }
  });

  it("refuses an answer naming a call that is not waiting: the task stays input-required with an error naming the id, nothing runs, the genuine ask is answered afterwards", async () => {
    const { server, calls } = await startSubagentServer(`sqlite:${join(dir, "forged.db")}`);
    try {
      const stream = await clientOf(server.url);
      const first = await stream(message([text("research it")]));
      const paused = first.at(-1)!.value;
      const [asked] = requestsOf(first.at(-1)!);
      const where = { taskId: paused.taskId, contextId: paused.contextId };

      const forged = await stream(
        message([data({ confirmResults: [{ toolCallId: "call_forged", confirmed: true }] })], where),
      );
      const refused = forged.at(-1)!;
      expect(stateOf(refused)).toBe(TaskState.TASK_STATE_INPUT_REQUIRED);
      expect(refused.value.status.message.parts[0].content.value).toContain(
        'unknown tool call "call_forged"',
      );
      expect(requestsOf(refused).map((r) => r.toolCallId)).toEqual([asked!.toolCallId]);
      expect(calls.count).toBe(0);

      const second = await stream(
        message([data({ confirmResults: [{ toolCallId: asked!.toolCallId, confirmed: true }] })], where),
      );
      expect(stateOf(second.at(-1)!)).toBe(TaskState.TASK_STATE_COMPLETED);
      expect(calls.count).toBe(1);
    } finally {
      await server.close();
    }
  });

  it("answers two waiting calls in one message: the approved one runs once, the denied one not, both recorded as a2a", async () => {
    const calls = { count: 0 };
    const erased = { count: 0 };
    const server = await startServer({
      config: {
        agents: [
          {
            name: "two",
            model: new ScriptedModel([
              {
                toolCalls: [
                  { id: "call_one", name: "record", input: { note: "one" } },
                  { id: "call_two", name: "erase", input: { note: "two" } },
                ],
              },
              { text: "two done" },
            ]),
            tools: [askingTool("record", calls), askingTool("erase", erased)],
          },
        ],
      },
      store: `sqlite:${join(dir, "two.db")}`,
      port: 0,
      tokensEnv: "tok-a:alice",
    });
    try {
      const stream = await clientOf(server.url, "two");
      const first = await stream(message([text("record both")]));
      const paused = first.at(-1)!.value;
      expect(stateOf(first.at(-1)!)).toBe(TaskState.TASK_STATE_INPUT_REQUIRED);
      const asked = requestsOf(first.at(-1)!);
      expect(asked.map((r) => r.input)).toEqual([
        JSON.stringify({ note: "one" }),
        JSON.stringify({ note: "two" }),
      ]);
      const [approved, denied] = asked.map((r) => r.toolCallId as string);

      const second = await stream(
        message(
          [
            data({
              confirmResults: [
                { toolCallId: approved, confirmed: true },
                { toolCallId: denied, confirmed: false, reason: "not this one" },
              ],
            }),
          ],
          { taskId: paused.taskId, contextId: paused.contextId },
        ),
      );
      expect(stateOf(second.at(-1)!)).toBe(TaskState.TASK_STATE_COMPLETED);
      expect(calls.count).toBe(1);
      expect(erased.count).toBe(0);

      const response = await authFetch(`${server.url}/v1/sessions/a2a.two.${paused.contextId}/decisions`);
      const { decisions } = (await response.json()) as { decisions: Array<Record<string, unknown>> };
      const answers = decisions.filter((d) => d.outcome === "approve" || d.outcome === "deny");
      expect(answers.map((d) => [d.toolCallId, d.outcome, d.channel, d.actor])).toEqual([
        [approved, "approve", "a2a", "alice"],
        [denied, "deny", "a2a", "alice"],
      ]);
    } finally {
      await server.close();
    }
  });

  it("carries a spawned sub-agent session's ask: the task waits on it, a forged id runs nothing, the answer runs the sub-agent's tool once, recorded as a2a", async () => {
    const { server, calls } = await startSpawnServer(`sqlite:${join(dir, "spawned.db")}`, "lead");
    const decisionsOf = async (sessionId: string) => {
      const response = await authFetch(`${server.url}/v1/sessions/${sessionId}/decisions`);
      return response.ok
        ? ((await response.json()) as { decisions: Array<Record<string, unknown>> }).decisions
        : [];
    };
    try {
      const stream = await clientOf(server.url, "lead");
      let last = (await stream(message([text("spawn a helper")]))).at(-1)!;
      const contextId = last.value.contextId as string;
      const child = `a2a.lead.${contextId}.sub_1`;
      for (let i = 0; i < 200 && !(await decisionsOf(child)).some((d) => d.outcome === "ask"); i++)
        await new Promise((resolve) => setTimeout(resolve, 50));
      // The helper asks in its own session: before the lead's reply ended, that task waits on it;
      // after, the context's next task does.
      if (stateOf(last) !== TaskState.TASK_STATE_INPUT_REQUIRED)
        last = (await stream(message([text("how is it going?")], { contextId }))).at(-1)!;
      expect(stateOf(last)).toBe(TaskState.TASK_STATE_INPUT_REQUIRED);
      const asked = requestsOf(last);
      expect(asked).toHaveLength(1);
      expect(asked[0]).toMatchObject({ sessionId: child, subagentId: "sub_1", toolName: "record" });
      const where = { taskId: last.value.taskId, contextId };

      const forged = (
        await stream(
          message([data({ confirmResults: [{ toolCallId: "call_forged", confirmed: true }] })], where),
        )
      ).at(-1)!;
      expect(stateOf(forged)).toBe(TaskState.TASK_STATE_INPUT_REQUIRED);
      expect(forged.value.status.message.parts[0].content.value).toContain('unknown tool call "call_forged"');
      expect(calls.count).toBe(0);

      const answered = await stream(
        message([data({ confirmResults: [{ toolCallId: asked[0]!.toolCallId, confirmed: true }] })], where),
      );
      expect(stateOf(answered.at(-1)!)).toBe(TaskState.TASK_STATE_COMPLETED);
      expect(calls.count).toBe(1);
      const approval = (await decisionsOf(child)).find((d) => d.outcome === "approve");
      expect(approval).toMatchObject({ channel: "a2a", actor: "alice", toolName: "record" });
    } finally {
      await server.close();
    }
  });
});
