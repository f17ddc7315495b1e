import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { CUT_OFF_NOTE } from "../../src/agent/index.js";
import { type RunningServer, startServer } from "../../src/app/server/start-server.js";
import { type AgentEvent, foldEvents } from "../../src/event/index.js";
import { dropBackend } from "../state/drop-backend.js";
import { reportMissingService } from "../support/services.js";
import { type ChildServer, startChildServer } from "./child-server.js";
import { crashModel, recordTool, slowTool } from "./fixtures/agents.js";
import { follow } from "./follow-stream.js";
import { type Frame, json } from "./helpers.js";
import { postJson as post, replicaBackends } from "./replica-backends.js";

const count = (type: string, n: number) => (frames: Frame[]) =>
  frames.filter((f) => f.event === type).length >= n;
const has = (type: string) => count(type, 1);

/** Every block opened in the log is closed again. */
function unclosed(events: AgentEvent[]): string[] {
  const open = new Set<string>();
  for (const e of events) {
    if (e.type.endsWith("_BLOCK_START"))
      open.add(`${e.type.replace("_START", "")}:${(e as { blockId: string }).blockId}`);
    if (e.type.endsWith("_BLOCK_END"))
      open.delete(`${e.type.replace("_END", "")}:${(e as { blockId: string }).blockId}`);
    if (e.type === "TOOL_RESULT_START") open.add(`result:${e.toolCallId}`);
    if (e.type === "TOOL_RESULT_END") open.delete(`result:${e.toolCallId}`);
    if (e.type === "TOOL_CALL_START") open.add(`call:${e.toolCallId}`);
    if (e.type === "TOOL_CALL_END") open.delete(`call:${e.toolCallId}`);
  }
  return [...open];
}

const backends = await replicaBackends("crash");

for (const backend of backends) {
  describe(`kill -9 mid-reply, on ${backend.name}: a follower on another replica sees the reply end`, () => {
    if (backend.missing) {
      reportMissingService(backend.missing);
      return;
    }
    const dir = mkdtempSync(join(tmpdir(), "agentscope-crash-"));
    const countFile = join(dir, "count.txt");
    const store = backend.store(dir);
    const prefix = backend.prefix;
    let b: RunningServer;
    let a: ChildServer | undefined;
    const streams: Array<{ close(): Promise<void> }> = [];

    beforeAll(async () => {
      b = await startServer({
        config: {
          agents: [
            { name: "main", model: crashModel(), tools: [recordTool(countFile), slowTool(countFile)] },
          ],
          server: { recoverCheckMs: 100 },
        },
        store,
        port: 0,
        tokensEnv: "",
        withoutOptionalRoutes: true,
        backend: { prefix, lockTtlMs: 1500 },
      });
    }, 30_000);
    afterEach(async () => {
      await Promise.all(streams.splice(0).map((s) => s.close()));
      await a?.kill9();
    });
    afterAll(async () => {
      await b?.close();
      await dropBackend(store, prefix);
      rmSync(dir, { recursive: true, force: true });
    });

    /** A reply started on child A, followed on B from the first event. */
    async function startOnA(text: string) {
      rmSync(countFile, { force: true });
      a = await startChildServer(store, countFile, { prefix, lockTtlMs: 1500, crash: true });
      const { sessionId } = await json(post(a.url, "/v1/sessions", {}));
      const follower = follow(await fetch(`${b.url}/v1/sessions/${sessionId}/events`));
      streams.push(follower);
      expect((await post(a.url, `/v1/sessions/${sessionId}/replies`, { text })).status).toBe(202);
      return { sessionId, follower, a };
    }

    async function afterCrash(sessionId: string, frames: Frame[]) {
      const events = frames.map((f) => f.data!);
      expect(frames.map((f) => f.id)).toEqual(frames.map((_, i) => i + 1));
      expect(events.at(-1)).toMatchObject({ type: "REPLY_END", finishedReason: "interrupted" });
      expect(unclosed(events)).toEqual([]);
      const { messages } = await json(fetch(`${b.url}/v1/sessions/${sessionId}/messages`));
      expect(foldEvents(events)).toEqual(messages.at(-1));
      const status = await json(fetch(`${b.url}/v1/sessions/${sessionId}/status`));
      expect(status).toMatchObject({ running: false, pendingToolCalls: [], lastEventId: frames.length });
      expect(status.waitingFor).toBeUndefined();
      expect(status.replyId).toBeUndefined();
      return messages.at(-1);
    }

    it("while streaming: the streamed text and thinking are kept, the open blocks are closed", async () => {
      const { sessionId, follower, a } = await startOnA("stream please");
      await follower.until(count("TEXT_BLOCK_DELTA", 5));
      await a.kill9();
      const frames = await follower.until(has("REPLY_END"));
      const msg = await afterCrash(sessionId, frames);
      const streamed = frames
        .filter((f) => f.event === "TEXT_BLOCK_DELTA")
        .map((f) => (f.data as { delta: string }).delta)
        .join("");
      expect(streamed.length).toBeGreaterThan(0);
      expect(msg.content.find((block: { type: string }) => block.type === "text").text).toBe(streamed);
      expect(msg.content.find((block: { type: string }) => block.type === "thinking").thinking).toContain(
        "Let me think",
      );
    }, 60_000);

    it("while a tool runs: its result is interrupted and the tool is not run again on the next reply", async () => {
      const { sessionId, follower, a } = await startOnA("slow lookup");
      await follower.until(has("TOOL_RESULT_START"));
      await a.kill9();
      const frames = await follower.until(has("REPLY_END"));
      const msg = await afterCrash(sessionId, frames);
      const result = msg.content.find((block: { type: string }) => block.type === "tool_result");
      expect(result).toMatchObject({ name: "slow", state: "interrupted" });
      expect(result.output).toContain(CUT_OFF_NOTE);
      const next = await post(b.url, `/v1/sessions/${sessionId}/replies`, { text: "hi again" });
      expect(next.status).toBe(202);
      await follower.until(count("REPLY_END", 2));
      expect(readFileSync(countFile, "utf8").trim().split("\n")).toEqual(["slow"]);
    }, 60_000);

    it("while waiting for approval: the reply stays paused (no end), and approving on B completes it", async () => {
      const { sessionId, follower, a } = await startOnA("record this");
      await follower.until(has("REQUIRE_USER_CONFIRM"));
      await a.kill9();
      const status = await json(fetch(`${b.url}/v1/sessions/${sessionId}/status`));
      expect(status).toMatchObject({ running: false, waitingFor: "user_confirm" });
      const before = follower.frames.length;
      expect(status.lastEventId).toBe(before);
      const approved = await post(b.url, `/v1/sessions/${sessionId}/confirm`, {
        answers: [{ toolCallId: status.pendingToolCalls[0].id, confirmed: true }],
      });
      expect(approved.status).toBe(202);
      const frames = await follower.until(has("REPLY_END"));
      expect(frames.slice(before).map((f) => f.event)).not.toContain("REPLY_START");
      expect(frames.at(-1)?.data).toMatchObject({ type: "REPLY_END", finishedReason: "completed" });
      expect(readFileSync(countFile, "utf8").trim().split("\n")).toEqual(["hello"]);
    }, 60_000);
  });
}
