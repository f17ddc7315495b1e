import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import type { Msg } from "../../../src/message/index.js";
import { dropBackend } from "../../state/drop-backend.js";
import { missingService, reportMissingService, runName } from "../../support/services.js";
import { type ChildServer, startChildServer } from "../child-server.js";
import { json } from "../helpers.js";

/** Polls `read` until `test` holds, for up to a minute (a loaded CI runner is slow; no timing is asserted). */
async function until<T>(read: () => Promise<T>, test: (value: T) => boolean, what: string): Promise<T> {
  for (let i = 0; i < 600; i++) {
    const value = await read().catch(() => undefined);
    if (value !== undefined && test(value)) return value;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`timed out waiting for ${what}`);
}

const textOf = (msg: Msg | undefined) =>
  msg?.content.flatMap((b) => (b.type === "text" ? [b.text] : [])).join("") ?? "";
const lines = (file: string) =>
  existsSync(file) ? readFileSync(file, "utf8").split("\n").filter(Boolean) : [];

const backends = [
  { name: "SQLite", port: undefined, url: (dir: string) => `sqlite:${join(dir, "state.db")}` },
  { name: "PostgreSQL", port: 5432, url: () => "postgres://postgres@127.0.0.1:5432/test" },
];
const missing = Object.fromEntries(
  await Promise.all(
    backends.map(async (b) => [b.name, b.port ? await missingService(b.name, b.port) : undefined] as const),
  ),
);

const servers: ChildServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.kill9()));
});

for (const backend of backends) {
  describe(`a background sub-agent on ${backend.name}`, () => {
    if (missing[backend.name]) {
      reportMissingService(missing[backend.name]!);
      return;
    }
    const dir = mkdtempSync(join(tmpdir(), "agentscope-durable-spawn-"));
    const store = backend.url(dir);
    const prefix = `${runName("spawn").replace(/\W/g, "_")}_`;
    afterAll(async () => {
      await dropBackend(store, prefix);
      rmSync(dir, { recursive: true, force: true });
    });

    it("survives kill -9 of the service, finishes on restart (or on another replica), and its result reaches the parent", async () => {
      const countFile = join(dir, "count.txt");
      const options = { spawn: true, prefix, lockTtlMs: 3000, sweepEveryMs: 200 };
      const first = await startChildServer(store, countFile, options);
      servers.push(first);
      const { sessionId } = await json(post(first.url, "/v1/sessions", {}));
      expect(
        (await post(first.url, `/v1/sessions/${sessionId}/replies`, { text: "spawn worker slow" })).status,
      ).toBe(202);
      const childId = `${sessionId}.sub_1`;
      // The parent's reply ends at once (background); the sub-agent's tool runs and never returns.
      await until(
        async () => lines(countFile),
        (l) => l.includes("slow"),
        "the sub-agent's tool",
      );
      const before = await json(fetch(`${first.url}/v1/sessions/${sessionId}/messages`));
      expect(textOf(before.messages.at(-1))).toBe("Started it.");
      await first.kill9();

      // Another process on the same store (a restart, or another replica): its sweeper closes the
      // sub-agent's cut-off reply and resumes it; when it ends, a follow-up reply reads it in the parent.
      const second = await startChildServer(store, countFile, options);
      servers.push(second);
      const messages = await until(
        async () => (await json(fetch(`${second.url}/v1/sessions/${sessionId}/messages`))).messages as Msg[],
        (m) => textOf(m.at(-1)).startsWith("The sub-agent said:"),
        "the parent's follow-up reply",
      );
      expect(textOf(messages.at(-1))).toContain("The tool was interrupted, so I stopped.");
      const child = (await json(fetch(`${second.url}/v1/sessions/${childId}/messages`))).messages as Msg[];
      expect(textOf(child.at(-1))).toBe("The tool was interrupted, so I stopped.");
      // Nothing ran twice: the tool ran once, before the kill.
      expect(lines(countFile).filter((l) => l === "slow")).toHaveLength(1);
      // The parent's record of it is settled and delivered (saved with the parent's session).
      const listed = await json(fetch(`${second.url}/v1/sessions`));
      expect(
        listed.sessions.find((s: { sessionId: string }) => s.sessionId === childId)?.parent,
      ).toMatchObject({
        sessionId,
        subagentId: "sub_1",
      });
    }, 150_000);

    const options = { spawn: true, prefix, lockTtlMs: 3000, sweepEveryMs: 200 };
    /** A service process with a parent session whose first reply says `text`. */
    const serveParent = async (countFile: string, text: string) => {
      const server = await startChildServer(store, countFile, options);
      servers.push(server);
      const { sessionId } = await json(post(server.url, "/v1/sessions", {}));
      await post(server.url, `/v1/sessions/${sessionId}/replies`, { text });
      return { server, sessionId: sessionId as string };
    };
    /** Another process on the same store: the messages of `sessionId` once its last one passes `test`. */
    const afterRestart = async (countFile: string, sessionId: string, test: (m: Msg[]) => boolean) => {
      const second = await startChildServer(store, countFile, options);
      servers.push(second);
      const messages = await until(
        async () => (await json(fetch(`${second.url}/v1/sessions/${sessionId}/messages`))).messages as Msg[],
        test,
        `the messages of ${sessionId}`,
      );
      return { second, messages };
    };
    const followedUp = (m: Msg[]) => textOf(m.at(-1)).startsWith("The sub-agent said:");

    // Crash window 1: the spawn created the sub-agent's session and started it, but the process died
    // before the parent's state (with the spawn's record) was saved: the call was still waiting.
    it("a sub-agent whose parent's record died with the process is adopted: its outcome reaches the parent, its id is not handed out again", async () => {
      const countFile = join(dir, "count-adopt.txt");
      const { server: first, sessionId } = await serveParent(countFile, "spawn worker slow wait");
      await until(
        async () => lines(countFile),
        (l) => l.includes("slow"),
        "the sub-agent's tool",
      );
      await first.kill9();
      // The sub-agent resumes and ends; the parent (its call cut off) gets a follow-up reply with it.
      const { second, messages } = await afterRestart(countFile, sessionId, followedUp);
      expect(textOf(messages.at(-1))).toContain("The tool was interrupted, so I stopped.");
      expect(lines(countFile).filter((l) => l === "slow")).toHaveLength(1);
      // The next spawn is sub_2: the adopted sub_1 keeps its id (before, it collided with the session).
      expect(
        (await post(second.url, `/v1/sessions/${sessionId}/replies`, { text: "spawn worker hi again" }))
          .status,
      ).toBe(202);
      await until(
        async () =>
          (await json(fetch(`${second.url}/v1/sessions/${sessionId}.sub_2/messages`))).messages as Msg[],
        (m) => textOf(m.at(-1)) === "Hello.",
        "the second sub-agent",
      );
    }, 150_000);

    // Crash window 2: the sub-agent ended while its parent was busy (the follow-up was owed, only in
    // memory before), then the process died: the outbox's sweep on restart starts the follow-up.
    it("an outcome owed to a busy parent when the process dies is delivered after the restart", async () => {
      const countFile = join(dir, "count-owed.txt");
      const { server: first, sessionId } = await serveParent(countFile, "spawn worker hi then stall");
      // The sub-agent has ended; the parent is stuck in its own tool (its lease held).
      await until(
        async () =>
          (await json(fetch(`${first.url}/v1/sessions/${sessionId}.sub_1/messages`))).messages as Msg[],
        (m) => textOf(m.at(-1)) === "Hello.",
        "the sub-agent's end",
      );
      await until(
        async () => lines(countFile),
        (l) => l.includes("parent slow"),
        "the parent's stalled tool",
      );
      await first.kill9();
      const { messages } = await afterRestart(countFile, sessionId, followedUp);
      expect(textOf(messages.at(-1))).toBe("The sub-agent said: Hello.");
      // Delivered once: one follow-up reading it.
      expect(messages.filter((m) => textOf(m).startsWith("The sub-agent said:"))).toHaveLength(1);
    }, 150_000);
  });
}

const post = (url: string, path: string, body: unknown) =>
  fetch(`${url}${path}`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body),
  });
