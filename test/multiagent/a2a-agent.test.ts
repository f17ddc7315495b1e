import { spawn } from "node:child_process";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { type AgentCard, type Part, Role, TaskState } from "@a2a-js/sdk";
import {
  AgentEvent as A2AEvent,
  type AgentExecutor,
  DefaultRequestHandler,
  type ExecutionEventBus,
  InMemoryTaskStore,
  JsonRpcTransportHandler,
  type RequestContext,
  ServerCallContext,
} from "@a2a-js/sdk/server";
import { serve } from "@hono/node-server";
import { Hono } from "hono";
import { streamSSE } from "hono/streaming";
import { afterEach, describe, expect, it } from "vitest";
import { foldEvents, userConfirmResult } from "../../src/event/index.js";
import { blocksOf, textOf, userMsg } from "../../src/message/index.js";
import { A2A_INPUT_TOOL, A2AAgent, foldSubRun, subAgentTool } from "../../src/multiagent/index.js";
import { collect, confirmOf, scriptedAgent } from "./helpers.js";

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0)) await cleanup();
});

const text = (value: string): Part => ({
  content: { $case: "text", value },
  metadata: undefined,
  filename: "",
  mediaType: "text/plain",
});

/** A plain A2A agent built only from the SDK's server classes: greets, or asks before it "deletes". */
class SdkExecutor implements AgentExecutor {
  async execute(request: RequestContext, bus: ExecutionEventBus): Promise<void> {
    const { taskId, contextId } = request;
    const said = request.userMessage.parts
      .map((p) => (p.content?.$case === "text" ? p.content.value : ""))
      .join("");
    const status = (state: TaskState, message?: string) =>
      A2AEvent.statusUpdate({
        taskId,
        contextId,
        status: {
          state,
          message: message
            ? {
                messageId: `s-${Math.random()}`,
                contextId,
                taskId,
                role: Role.ROLE_AGENT,
                parts: [text(message)],
                metadata: undefined,
                extensions: [],
                referenceTaskIds: [],
              }
            : undefined,
          timestamp: new Date().toISOString(),
        },
        metadata: undefined,
      });
    bus.publish(
      A2AEvent.task(
        request.task ?? {
          id: taskId,
          contextId,
          status: { state: TaskState.TASK_STATE_SUBMITTED, message: undefined, timestamp: undefined },
          artifacts: [],
          history: [request.userMessage],
          metadata: undefined,
        },
      ),
    );
    if (said.startsWith("delete") && !request.task) {
      bus.publish(status(TaskState.TASK_STATE_INPUT_REQUIRED, "Really delete everything?"));
    } else if (request.task) {
      bus.publish(
        status(TaskState.TASK_STATE_COMPLETED, said.startsWith("yes") ? "Deleted." : `Kept (${said}).`),
      );
    } else {
      for (const [i, piece] of ["Hello ", "from ", "the SDK."].entries()) {
        bus.publish(
          A2AEvent.artifactUpdate({
            taskId,
            contextId,
            artifact: {
              artifactId: "a1",
              name: "answer",
              description: "",
              parts: [text(piece)],
              metadata: undefined,
              extensions: [],
            },
            append: i > 0,
            lastChunk: i === 2,
            metadata: undefined,
          }),
        );
      }
      bus.publish(status(TaskState.TASK_STATE_COMPLETED));
    }
    bus.finished();
  }
  async cancelTask(): Promise<void> {}
}

async function sdkServer(): Promise<string> {
  let base = "";
  const card = (): AgentCard => ({
    name: "sdk-agent",
    description: "An agent on the SDK's server classes",
    supportedInterfaces: [{ url: base, protocolBinding: "JSONRPC", tenant: "", protocolVersion: "1.0" }],
    provider: undefined,
    version: "1.0.0",
    capabilities: { streaming: true, pushNotifications: false, extensions: [] },
    securitySchemes: {},
    securityRequirements: [],
    defaultInputModes: ["text/plain"],
    defaultOutputModes: ["text/plain"],
    skills: [],
    signatures: [],
  });
  let handler: DefaultRequestHandler | undefined;
  const app = new Hono();
  app.get("/.well-known/agent-card.json", (c) => c.json(card()));
  app.post("/", async (c) => {
    handler ??= new DefaultRequestHandler(card(), new InMemoryTaskStore(), new SdkExecutor());
    const result = await new JsonRpcTransportHandler(handler).handle(
      await c.req.json(),
      new ServerCallContext({ requestedVersion: c.req.header("A2A-Version") ?? "1.0" }),
    );
    if (typeof (result as AsyncIterable<unknown>)[Symbol.asyncIterator] !== "function") return c.json(result);
    return streamSSE(c, async (stream) => {
      for await (const response of result as AsyncIterable<unknown>)
        await stream.writeSSE({ data: JSON.stringify(response) });
    });
  });
  const server = serve({ fetch: app.fetch, hostname: "127.0.0.1", port: 0 });
  await new Promise<void>((resolve) => server.once("listening", () => resolve()));
  cleanups.push(() => new Promise<void>((resolve) => server.close(() => resolve())));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
  return base;
}

describe("A2AAgent against the SDK's server classes", () => {
  it("streams the remote answer as our events and folds into its reply", async () => {
    const agent = new A2AAgent({ url: await sdkServer(), name: "sdk" });
    expect((await agent.card()).name).toBe("sdk-agent");
    const events = await collect(agent.replyStream(userMsg("hi")));
    expect(events[0]!.type).toBe("REPLY_START");
    expect(events.filter((e) => e.type === "TEXT_BLOCK_DELTA").length).toBe(3);
    const final = agent.state.context.at(-1)!;
    expect(final).toMatchObject({ name: "sdk", finishedReason: "completed" });
    expect(textOf(final)).toBe("Hello from the SDK.");
    expect(foldEvents(events)).toEqual(final);
  });

  it("maps input-required to a confirmation and sends the answer to the same task", async () => {
    const agent = new A2AAgent({ url: await sdkServer(), name: "sdk" });
    const first = await collect(agent.replyStream(userMsg("delete all")));
    const ask = confirmOf(first);
    expect(ask.toolCalls[0]).toMatchObject({ name: A2A_INPUT_TOOL, reason: "Really delete everything?" });
    expect(agent.state.replyContext?.waitingFor).toBe("user_confirm");
    const second = await collect(
      agent.replyStream(
        userConfirmResult({
          replyId: ask.replyId,
          confirmResults: [{ confirmed: true, toolCall: ask.toolCalls[0]! }],
        }),
      ),
    );
    const final = agent.state.context.at(-1)!;
    expect(final.finishedReason).toBe("completed");
    expect(textOf(final)).toBe("Deleted.");
    expect(blocksOf(final, "tool_result")[0]).toMatchObject({ output: "yes", state: "success" });
    expect(foldEvents([...first, ...second])).toEqual(final);
  });

  it("works as a sub-agent tool: the remote run streams nested", async () => {
    const remote = new A2AAgent({ url: await sdkServer(), name: "remote" });
    const main = scriptedAgent(
      "main",
      [{ toolCalls: [{ name: "remote", input: { prompt: "hi" } }] }, { text: "done" }],
      [subAgentTool(remote, { description: "A remote agent" })],
    );
    const events = await collect(main.replyStream(userMsg("ask the remote")));
    expect(textOf(foldSubRun(events, { source: "main/remote" })!)).toBe("Hello from the SDK.");
    // Forwarded events carry the remote task and the delegating session (the seeds' task metadata).
    const forwarded = events.filter((e) => e.source === "main/remote" && e.type === "TEXT_BLOCK_DELTA");
    expect(forwarded.length).toBeGreaterThan(0);
    for (const event of forwarded) {
      expect(event.metadata).toMatchObject({ parentSessionId: main.state.sessionId });
      expect(typeof event.metadata?.taskId).toBe("string");
    }
    expect(blocksOf(main.state.context.at(-1)!, "tool_result")[0]!.output).toBe("Hello from the SDK.");
  });
});

describe("A2AAgent against our service in another process", () => {
  it("talks to the service's A2A endpoint: a reply, then a confirmation across processes", async () => {
    const child = spawn(
      process.execPath,
      ["--import", "tsx", join(import.meta.dirname, "fixtures/a2a-service-child.ts")],
      {
        cwd: join(import.meta.dirname, "../.."),
        stdio: ["ignore", "pipe", "pipe"],
      },
    );
    cleanups.push(() => {
      child.kill("SIGKILL");
    });
    const url = await new Promise<string>((resolve, reject) => {
      let out = "";
      child.stdout!.on("data", (d) => {
        out += d;
        const match = /listening (\S+)/.exec(out);
        if (match) resolve(match[1]!);
      });
      child.once("exit", (code) => reject(new Error(`the service exited (${code})`)));
    });
    const ops = new A2AAgent({ url, auth: { bearer: "child-token" }, name: "ops" });
    expect((await ops.card()).skills.map((s) => s.name)).toEqual(["deploy"]);
    expect(textOf(await ops.reply(userMsg("status?")))).toBe("The build is green.");

    const first = await collect(ops.replyStream(userMsg("deploy to prod")));
    const ask = confirmOf(first);
    expect(ask.toolCalls[0]!.reason).toContain('Confirm: deploy({"env":"prod"})');
    await collect(
      ops.replyStream(
        userConfirmResult({
          replyId: ask.replyId,
          confirmResults: [{ confirmed: true, toolCall: ask.toolCalls[0]! }],
        }),
      ),
    );
    expect(textOf(ops.state.context.at(-1)!)).toBe("Deployed to prod.");

    const unauthorized = new A2AAgent({ url, name: "ops" });
    await expect(unauthorized.card()).rejects.toThrow(/401/);
  }, 40_000);
});
