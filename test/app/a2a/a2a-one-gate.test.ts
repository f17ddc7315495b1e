import type { AddressInfo } from "node:net";
import { type Message, Role, TaskState } from "@a2a-js/sdk";
import {
  ClientFactory,
  ClientFactoryOptions,
  DefaultAgentCardResolver,
  JsonRpcTransportFactory,
} from "@a2a-js/sdk/client";
import { serve } from "@hono/node-server";
import { afterEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { a2aRoutes } from "../../../src/app/a2a/index.js";
import { sessionOfContext } from "../../../src/app/a2a/service-executor.js";
import { createApp } from "../../../src/app/server/app.js";
import { memoryBackend } from "../../../src/app/server/backend/memory-backend.js";
import { ServiceRuntime } from "../../../src/app/server/runtime/service-runtime.js";
import { blocksOf } from "../../../src/message/index.js";
import { ScriptedModel } from "../../../src/testing/index.js";
import { functionTool } from "../../../src/tool/index.js";

const TOKEN = "a2a-gate-token";
const closers: Array<() => Promise<void>> = [];
afterEach(async () => {
  await Promise.all(closers.splice(0).map((close) => close()));
});

/** A service whose agent asks before `send_mail`, and whose permission check denies mail to "everyone". */
async function start() {
  const sent: string[] = [];
  const sendMail = functionTool({
    name: "send_mail",
    description: "Sends a mail",
    input: z.object({ to: z.string() }),
    checkPermissions: (input) =>
      (input as { to: string }).to === "everyone"
        ? { behavior: "deny", reason: "mail to everyone is not allowed" }
        : { behavior: "passthrough" },
    execute: ({ to }) => {
      sent.push(to);
      return `sent to ${to}`;
    },
  });
  const backend = memoryBackend();
  const runtime = new ServiceRuntime({
    backend,
    agents: [
      {
        name: "helper",
        model: new ScriptedModel([
          { toolCalls: [{ id: "call_m", name: "send_mail", input: { to: "bob" } }] },
          { text: "done" },
        ]),
        toolkit: [sendMail],
      },
    ],
    heartbeatMs: 20,
  });
  const app = createApp(runtime, { mounts: [a2aRoutes(runtime)], tokens: new Map([[TOKEN, "alice"]]) });
  const server = serve({ fetch: app.fetch, hostname: "127.0.0.1", port: 0 });
  await new Promise<void>((resolve) => server.once("listening", () => resolve()));
  const { port } = server.address() as AddressInfo;
  closers.push(async () => {
    await new Promise<void>((resolve) => server.close(() => resolve()));
    await runtime.close();
  });
  const authFetch: typeof fetch = (input, init) => {
    const headers = new Headers(init?.headers);
    headers.set("Authorization", `Bearer ${TOKEN}`);
    return fetch(input, { ...init, headers });
  };
  const factory = new ClientFactory(
    ClientFactoryOptions.createFrom(ClientFactoryOptions.default, {
      transports: [new JsonRpcTransportFactory({ fetchImpl: authFetch })],
      cardResolver: new DefaultAgentCardResolver({ fetchImpl: authFetch }),
    }),
  );
  const client = await factory.createFromUrl(`http://127.0.0.1:${port}/v1/a2a/helper/`);
  return { client, backend, sent };
}

function message(content: Message["parts"][number]["content"], extra: Partial<Message> = {}): Message {
  return {
    messageId: `m-${Math.random().toString(36).slice(2)}`,
    contextId: "",
    taskId: "",
    role: Role.ROLE_USER,
    parts: [{ content, metadata: undefined, filename: "", mediaType: "" }],
    metadata: undefined,
    extensions: [],
    referenceTaskIds: [],
    ...extra,
  };
}

// biome-ignore lint/suspicious/noExplicitAny: the SDK's stream responses are a tagged union read loosely here
type Payload = { $case: string; value: any };

async function stream(client: Awaited<ReturnType<typeof start>>["client"], msg: Message): Promise<Payload[]> {
  const updates: Payload[] = [];
  for await (const update of client.sendMessageStream({ message: msg } as never)) {
    updates.push((update as { payload: Payload }).payload);
  }
  return updates;
}

describe("A2A answers go through the agent's permission gate", () => {
  it("an approval whose data part edits the call into a denied one is refused; nothing is sent", async () => {
    const { client, backend, sent } = await start();
    const first = await stream(client, message({ $case: "text", value: "mail bob" }));
    const ask = first.at(-1)!.value;
    expect(ask.status.state).toBe(TaskState.TASK_STATE_INPUT_REQUIRED);
    const answer = {
      confirmResults: [{ toolCallId: "call_m", confirmed: true, input: '{"to":"everyone"}' }],
    };
    await stream(
      client,
      message({ $case: "data", value: answer } as never, { taskId: ask.taskId, contextId: ask.contextId }),
    );
    expect(sent).toEqual([]);
    const state = await backend.store.load(sessionOfContext("helper", ask.contextId));
    const reply = state!.state.context.findLast((msg) => msg.role === "assistant")!;
    expect(blocksOf(reply, "tool_result")[0]).toMatchObject({
      state: "denied",
      output: expect.stringContaining("mail to everyone is not allowed"),
    });
  });

  it("a malformed confirmResults data part is an error naming the field, and nothing runs", async () => {
    const { client, sent } = await start();
    const ask = (await stream(client, message({ $case: "text", value: "mail bob" }))).at(-1)!.value;
    const answer = { confirmResults: [{ toolCallId: "call_m", confirmed: "yes", input: 5 }] };
    const outcome = await stream(
      client,
      message({ $case: "data", value: answer } as never, { taskId: ask.taskId, contextId: ask.contextId }),
    ).then(
      (updates) => JSON.stringify(updates),
      (error: unknown) => String(error),
    );
    expect(outcome).toMatch(/confirmResults\.0\.confirmed/);
    expect(sent).toEqual([]);
  });
});
