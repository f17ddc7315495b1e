import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, expect, it } from "vitest";
import { foldEvents } from "../../src/event/index.js";
import { type ChildServer, startChildServer } from "./child-server.js";
import { type Frame, isType, json, readSse } from "./helpers.js";

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

it("a reply paused for confirmation survives kill -9: reconnect with the last event id, approve, it completes; the tool ran once and no event was missed or repeated", async () => {
  const dir = mkdtempSync(join(tmpdir(), "agentscope-restart-"));
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
  const store = `sqlite:${join(dir, "state.db")}`;
  const countFile = join(dir, "count.txt");
  const start = async () => {
    const server = await startChildServer(store, countFile);
    cleanups.push(() => server.kill9());
    return server;
  };
  const post = (server: ChildServer, path: string, body: unknown, accept = "application/json") =>
    fetch(`${server.url}${path}`, {
      method: "POST",
      headers: { "content-type": "application/json", accept },
      body: JSON.stringify(body),
    });

  const first = await start();
  const { sessionId } = await json(post(first, "/v1/sessions", {}));
  const reply = await post(
    first,
    `/v1/sessions/${sessionId}/replies`,
    { text: "record hello" },
    "text/event-stream",
  );
  const all = (await readSse(reply, isType("REQUIRE_USER_CONFIRM"))).frames;
  expect(all.at(-1)?.event).toBe("REQUIRE_USER_CONFIRM");
  // The client saw only the first few events when its server died.
  const seen: Frame[] = all.slice(0, 4);
  await first.kill9();

  const second = await start();
  const reconnect = await fetch(`${second.url}/v1/sessions/${sessionId}/events`, {
    headers: { accept: "text/event-stream", "last-event-id": String(seen.at(-1)!.id) },
  });
  const following = readSse(reconnect, isType("REPLY_END"), 10_000);
  const status = await json(fetch(`${second.url}/v1/sessions/${sessionId}/status`));
  expect(status).toMatchObject({ running: false, waitingFor: "user_confirm" });
  const approved = await post(second, `/v1/sessions/${sessionId}/confirm`, {
    answers: [{ toolCallId: status.pendingToolCalls[0].id, confirmed: true }],
  });
  expect(approved.status).toBe(202);
  seen.push(...(await following).frames);

  const ids = seen.map((f) => f.id);
  expect(ids).toEqual(Array.from({ length: ids.length }, (_, i) => i + 1));
  expect(seen.slice(0, all.length).map((f) => f.data)).toEqual(all.map((f) => f.data));
  expect(seen.at(-1)?.data).toMatchObject({ type: "REPLY_END", finishedReason: "completed" });
  expect(readFileSync(countFile, "utf8").trim().split("\n")).toEqual(["hello"]);

  const { messages } = await json(fetch(`${second.url}/v1/sessions/${sessionId}/messages`));
  expect(foldEvents(seen.map((f) => f.data!))?.content).toEqual(messages[1].content);
}, 60_000);
