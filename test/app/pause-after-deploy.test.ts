import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, expect, it } from "vitest";
import { z } from "zod";
import { type RunningServer, startServer } from "../../src/app/server/start-server.js";
import { functionTool, type Tool } from "../../src/tool/index.js";
import { conversationModel, recordTool } from "./fixtures/agents.js";
import { isType, json, readSse } from "./helpers.js";

// A reply paused on one deploy of the service, answered on the next one (same store, other tools).

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** Deploy 2's `record`: one more parameter (another schema). */
const recordV2 = (runs: string[]): Tool =>
  functionTool({
    name: "record",
    description: "Record a note.",
    input: z.object({ note: z.string(), tag: z.string().optional() }),
    execute: ({ note }) => {
      runs.push(note);
      return `recorded ${note}`;
    },
  }) as Tool;

async function deploy(store: string, tools: Tool[]): Promise<RunningServer> {
  const server = await startServer({
    config: { agents: [{ name: "main", model: conversationModel(), tools }] },
    store,
    port: 0,
    tokensEnv: "",
    withoutOptionalRoutes: true,
  });
  cleanups.push(() => server.close());
  return server;
}

const post = (server: RunningServer, path: string, body: unknown, accept = "application/json") =>
  fetch(`${server.url}${path}`, {
    method: "POST",
    headers: { "content-type": "application/json", accept },
    body: JSON.stringify(body),
  });

/** A session whose reply waits for the `record` confirmation on deploy 1 (then shut down). */
async function pausedOnDeploy1(store: string): Promise<string> {
  const first = await deploy(store, [recordTool()]);
  const { sessionId } = await json(post(first, "/v1/sessions", {}));
  const reply = await post(first, `/v1/sessions/${sessionId}/replies`, { text: "note" }, "text/event-stream");
  await readSse(reply, isType("REQUIRE_USER_CONFIRM"));
  await first.close();
  return sessionId;
}

async function confirm(server: RunningServer, sessionId: string) {
  const status = await json(fetch(`${server.url}/v1/sessions/${sessionId}/status`));
  expect(status.waitingFor).toBe("user_confirm");
  const answered = await post(
    server,
    `/v1/sessions/${sessionId}/confirm`,
    { answers: [{ toolCallId: status.pendingToolCalls[0].id, confirmed: true }] },
    "text/event-stream",
  );
  return (await readSse(answered, (f) => f.event === "REQUIRE_USER_CONFIRM" || f.event === "REPLY_END"))
    .frames;
}

it("a deploy that changes the paused tool asks again with the difference; one that removes it fails closed", async () => {
  const dir = mkdtempSync(join(tmpdir(), "agentscope-deploy-"));
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
  const store = `sqlite:${join(dir, "state.db")}`;

  const changed = await pausedOnDeploy1(store);
  const runs: string[] = [];
  const second = await deploy(store, [recordV2(runs)]);
  const frames = await confirm(second, changed);
  const ask = frames.at(-1)!.data as { type: string; toolCalls: Array<{ reason: string }> };
  expect(ask.type).toBe("REQUIRE_USER_CONFIRM");
  expect(ask.toolCalls[0]!.reason).toContain("the input schema of record changed");
  expect(runs).toEqual([]);
  const { decisions } = await json(fetch(`${second.url}/v1/sessions/${changed}/decisions`));
  expect(decisions.map((r: { outcome: string }) => r.outcome)).toEqual(["ask", "changed", "ask"]);
  // Asked again on this deploy, the answer is taken.
  expect((await confirm(second, changed)).at(-1)?.data).toMatchObject({ type: "REPLY_END" });
  expect(runs).toEqual(["hello"]);
  await second.close();

  const removed = await pausedOnDeploy1(store);
  const third = await deploy(store, []);
  const end = await confirm(third, removed);
  expect(end.at(-1)?.data).toMatchObject({ type: "REPLY_END", finishedReason: "completed" });
  const { messages } = await json(fetch(`${third.url}/v1/sessions/${removed}/messages`));
  const result = messages.at(-1).content.find((b: { type: string }) => b.type === "tool_result");
  expect(result).toMatchObject({ state: "error" });
  expect(result.output).toContain("the tool record was removed since this call paused; it was not run");
}, 60_000);
