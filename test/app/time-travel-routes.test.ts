import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Redis } from "ioredis";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { createApp } from "../../src/app/server/app.js";
import { createBackend } from "../../src/app/server/backend/create-backend.js";
import { mountedRoutes } from "../../src/app/server/mounted-routes.js";
import { ServiceRuntime } from "../../src/app/server/runtime/service-runtime.js";
import { WorkspaceManager } from "../../src/app/server/workspace-manager.js";
import { type Msg, textOf, userMsg } from "../../src/message/index.js";
import type { ChatModel } from "../../src/model/core.js";
import { openCheckpointStore } from "../../src/state/index.js";
import { ScriptedModel, type ScriptedTurn } from "../../src/testing/index.js";
import { functionTool, type Tool } from "../../src/tool/index.js";
import { dropBackend } from "../state/drop-backend.js";
import { missingService, reportMissingService, runName } from "../support/services.js";

/** "write X" writes X to f.txt in the session's workspace; "wait" waits for the test; "ask" asks first. */
function writerModel(): ChatModel {
  const base = new ScriptedModel([]);
  const turn = (messages: Msg[]): ScriptedTurn => {
    const last = messages.at(-1);
    if (last?.role === "assistant" && last.content.some((b) => b.type === "tool_result"))
      return { text: "done" };
    const text = textOf(messages.findLast((m) => m.role === "user")!);
    if (text === "wait") return { toolCalls: [{ name: "wait", input: {} }] };
    if (text === "ask") return { toolCalls: [{ name: "ask", input: {} }] };
    return { toolCalls: [{ name: "write", input: { text: text.replace(/^write /, "") } }] };
  };
  return {
    name: "writer",
    provider: "scripted",
    contextSize: base.contextSize,
    countTokens: (messages, tools) => base.countTokens(messages, tools),
    stream: (messages, opts) => new ScriptedModel([turn(messages)]).stream(messages, opts),
  };
}

let release: () => void = () => {};
let started: () => void = () => {};
const tools: Tool[] = [
  functionTool({
    name: "write",
    description: "writes f.txt",
    input: z.object({ text: z.string() }),
    readOnly: true, // runs without asking: what it writes is the point of the test
    execute: ({ text }, ctx) => {
      writeFileSync(join(ctx.permission.workingDirectories[0]!, "f.txt"), text);
      return "written";
    },
  }) as Tool,
  functionTool({
    name: "wait",
    description: "waits",
    input: z.object({}),
    readOnly: true,
    execute: async () => {
      started();
      await new Promise<void>((resolve) => {
        release = resolve;
      });
      return "waited";
    },
  }) as Tool,
  functionTool({ name: "ask", description: "asks first", input: z.object({}), execute: () => "ran" }) as Tool,
];

const backends = [
  { name: "sqlite", url: (dir: string) => `sqlite:${join(dir, "state.db")}` },
  { name: "redis", url: () => "redis://127.0.0.1:6379", port: 6379 },
  { name: "postgres", url: () => "postgres://postgres@127.0.0.1:5432/test", port: 5432 },
];

for (const backendCase of backends) {
  describe(`time-travel routes on ${backendCase.name}`, async () => {
    const missing = backendCase.port ? await missingService(backendCase.name, backendCase.port) : undefined;
    if (missing) return reportMissingService(missing);
    const dir = mkdtempSync(join(tmpdir(), "agentscope-tt-routes-"));
    const prefix = `${runName("ttr")}_`;
    const url = backendCase.url(dir);
    let runtime: ServiceRuntime;
    let manager: WorkspaceManager;
    let app: ReturnType<typeof createApp>;
    beforeAll(async () => {
      const backend = await createBackend(url, { prefix });
      manager = new WorkspaceManager({ dataDir: dir });
      runtime = new ServiceRuntime({
        backend,
        agents: [
          {
            name: "main",
            model: writerModel(),
            toolkit: tools,
            middlewares: [manager.middleware(backend.sessions)],
          },
        ],
        checkpoints: {
          store: openCheckpointStore(url, prefix),
          workspaceOf: (record) => manager.rootOf(record),
        },
      });
      app = createApp(runtime, {
        mounts: mountedRoutes(runtime, { memory: { flush: async () => {} }, optional: false }),
      });
    });
    afterAll(async () => {
      await runtime.close();
      await dropBackend(url, prefix).catch(() => {});
      await dropCheckpoints(backendCase.name, url, prefix);
      rmSync(dir, { recursive: true, force: true });
    });

    const call = async (method: string, path: string, body?: unknown) => {
      const response = await app.fetch(
        new Request(`http://127.0.0.1${path}`, {
          method,
          ...(body === undefined
            ? {}
            : { headers: { "content-type": "application/json" }, body: JSON.stringify(body) }),
        }),
      );
      return { status: response.status, body: await response.json() };
    };
    const reply = async (sessionId: string, text: string) =>
      (await runtime.startReply("local", sessionId, [{ ...userText(text) }])).done;
    const fileOf = (sessionId: string) =>
      readFileSync(join(manager.rootOf({ sessionId, owner: "local" }), "f.txt"), "utf8");
    const idle = async (sessionId: string) => {
      while ((await runtime.status("local", sessionId)).running) await new Promise((r) => setTimeout(r, 20));
    };

    it("lists checkpoints; rewinds files and conversation; undoes; forks an independent session", async () => {
      const { sessionId } = await runtime.createSession("local", {});
      await reply(sessionId, "write one");
      await reply(sessionId, "write two");
      const listed = await call("GET", `/v1/sessions/${sessionId}/checkpoints`);
      expect(listed.status).toBe(200);
      expect(listed.body.files).toBe(true);
      expect(listed.body.checkpoints.map((c: { kind: string }) => c.kind)).toEqual([
        "start",
        "reply_end",
        "reply_end",
      ]);
      expect(listed.body.checkpoints[1].logSeq).toBeGreaterThan(0);
      expect(listed.body.checkpoints[1]).not.toHaveProperty("stateBlob");

      const rewound = await call("POST", `/v1/sessions/${sessionId}/rewind`, { checkpoint: "cp-2" });
      expect(rewound.status).toBe(200);
      expect(rewound.body).toMatchObject({ checkpoint: "cp-2", messages: 2 });
      expect(fileOf(sessionId)).toBe("one");
      expect((await runtime.messages("local", sessionId)).map(textOf)).toEqual(["write one", "done"]);
      await call("POST", `/v1/sessions/${sessionId}/rewind`, { checkpoint: rewound.body.undo });
      expect(fileOf(sessionId)).toBe("two");
      expect(await runtime.messages("local", sessionId)).toHaveLength(4);

      const forked = await call("POST", `/v1/sessions/${sessionId}/fork`, {
        checkpoint: "cp-2",
        title: "try again",
      });
      expect(forked.status).toBe(201);
      const forkId = forked.body.session.sessionId;
      expect(forked.body.origin).toEqual({ sessionId, checkpoint: "cp-2" });
      expect(fileOf(forkId)).toBe("one");
      await reply(forkId, "write fork");
      expect(fileOf(forkId)).toBe("fork");
      expect(fileOf(sessionId)).toBe("two");
      expect((await runtime.messages("local", forkId)).map(textOf)).toEqual([
        "write one",
        "done",
        "write fork",
        "done",
      ]);
      expect(await runtime.messages("local", sessionId)).toHaveLength(4);
      expect((await call("GET", `/v1/sessions/${forkId}/checkpoints`)).body.head.origin).toEqual({
        sessionId,
        checkpoint: "cp-2",
      });
    });

    it("edit-and-resend replaces a past user message on a new branch and keeps the old one", async () => {
      const { sessionId } = await runtime.createSession("local", {});
      await reply(sessionId, "write one");
      await reply(sessionId, "write two");
      const second = (await runtime.messages("local", sessionId))[2]!;
      const edited = await call("POST", `/v1/sessions/${sessionId}/messages/${second.id}/edit`, {
        text: "write 2b",
      });
      expect(edited.status).toBe(202);
      expect(edited.body).toMatchObject({ sessionId });
      await idle(sessionId);
      expect((await runtime.messages("local", sessionId)).map(textOf)).toEqual([
        "write one",
        "done",
        "write 2b",
        "done",
      ]);
      expect(fileOf(sessionId)).toBe("2b");
      const { body } = await call("GET", `/v1/sessions/${sessionId}/checkpoints`);
      // the old line is kept: its tip (the rewind checkpoint) restores the first "two"
      const undo = body.checkpoints.find((c: { kind: string }) => c.kind === "rewind");
      expect(Object.keys(body.head.branches)).toHaveLength(2);
      await call("POST", `/v1/sessions/${sessionId}/rewind`, { checkpoint: undo.id });
      expect(fileOf(sessionId)).toBe("two");
      expect((await runtime.messages("local", sessionId)).map(textOf)[2]).toBe("write two");
      // the first message can be edited too: the session's start checkpoint is before it
      const first = (await runtime.messages("local", sessionId))[0]!;
      expect(
        (await call("POST", `/v1/sessions/${sessionId}/messages/${first.id}/edit`, { text: "write zero" }))
          .status,
      ).toBe(202);
      await idle(sessionId);
      expect((await runtime.messages("local", sessionId)).map(textOf)).toEqual(["write zero", "done"]);
    });

    it("a rewind during a running reply is refused (409) and changes nothing; a paused call rewound away is closed", async () => {
      const { sessionId } = await runtime.createSession("local", {});
      await reply(sessionId, "write one");
      const running = new Promise<void>((resolve) => {
        started = resolve;
      });
      const handle = await runtime.startReply("local", sessionId, [userText("wait")]);
      await running;
      const refused = await call("POST", `/v1/sessions/${sessionId}/rewind`, { checkpoint: "cp-1" });
      expect(refused.status).toBe(409);
      expect(refused.body.error.type).toBe("run_in_progress");
      release();
      await handle.done;
      expect(await runtime.messages("local", sessionId)).toHaveLength(4);

      await (await runtime.startReply("local", sessionId, [userText("ask")])).done;
      expect((await runtime.status("local", sessionId)).waitingFor).toBe("user_confirm");
      const closed = await call("POST", `/v1/sessions/${sessionId}/rewind`, { checkpoint: "cp-2" });
      expect(closed.body.closedReply).toBeDefined();
      const status = await runtime.status("local", sessionId);
      expect(status.waitingFor).toBeUndefined();
      expect(status.pendingToolCalls).toEqual([]);
      expect((await call("POST", `/v1/sessions/${sessionId}/rewind`, { checkpoint: "cp-99" })).status).toBe(
        404,
      );
      expect((await call("POST", `/v1/sessions/${sessionId}/rewind`, { checkpoint: "nope" })).status).toBe(
        400,
      );
    });
  });
}

function userText(text: string): Msg {
  return userMsg(text);
}

/** Removes what openCheckpointStore(url, prefix) wrote (SQLite goes with its directory). */
async function dropCheckpoints(kind: string, url: string, prefix: string): Promise<void> {
  if (kind === "redis") {
    const redis = new Redis(url);
    const keys = await redis.keys(`${prefix}checkpoints:*`);
    if (keys.length) await redis.del(...keys);
    await redis.quit();
  } else if (kind === "postgres") {
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    await client.query(`DROP TABLE IF EXISTS ${prefix}checkpoints_blobs, ${prefix}checkpoints_records`);
    await client.end();
  }
}
