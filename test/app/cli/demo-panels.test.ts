import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { PassThrough } from "node:stream";
import { afterAll, beforeAll, expect, it } from "vitest";
import { demoCommand } from "../../../src/app/cli/demo-command.js";
import { seedDemoKnowledge } from "../../../src/app/demo/demo-knowledge.js";
import { LOCAL_USER } from "../../../src/app/server/http/auth.js";
import type { RunningServer } from "../../../src/app/server/start-server.js";
import { AgentScopeClient } from "../../../src/client/index.js";
import type { AgentEvent } from "../../../src/event/index.js";

const dir = mkdtempSync(join(tmpdir(), "agentscope-demo-panels-"));
let server: RunningServer;
let shown = "";

beforeAll(async () => {
  const out = new PassThrough();
  out.on("data", (d) => {
    shown += d;
  });
  server = await demoCommand({ port: 0, store: "memory:", workspace: join(dir, "demo"), out });
}, 30_000);

afterAll(async () => {
  await server?.close();
  rmSync(dir, { recursive: true, force: true });
});

async function events(stream: AsyncIterable<AgentEvent>): Promise<AgentEvent[]> {
  const seen: AgentEvent[] = [];
  for await (const event of stream) seen.push(event);
  return seen;
}

it("turns on every panel: a workspace, memory and a sample knowledge base, which the replies' hints draw on", async () => {
  const client = new AgentScopeClient({ baseUrl: server.url });
  expect(shown).toContain('Sample knowledge base "demo-handbook" created');

  // Knowledge: the sample base, indexed in the background, searchable.
  const [base] = await client.knowledge.list();
  expect(base?.name).toBe("demo-handbook");
  await expect
    .poll(async () => (await client.knowledge.documents("demo-handbook")).map((d) => d.source), {
      timeout: 10_000,
    })
    .toEqual(["handbook.md"]);
  const hits = await client.knowledge.search("demo-handbook", "what does the Knowledge panel do");
  expect(hits.some((hit) => hit.citation.includes("handbook.md"))).toBe(true);

  // Memory is on (and empty before the first reply).
  expect(await client.memories()).toMatchObject({ enabled: true, memories: [] });

  // A reply: the excerpts of the base come as a hint, the workspace is listed, save_note asks.
  const session = await client.createSession();
  const first = await events(client.send(session.sessionId, "summarize my workspace"));
  expect(first.some((e) => e.type === "HINT_BLOCK" && e.text.includes("handbook.md"))).toBe(true);
  const ask = first.find((e) => e.type === "REQUIRE_USER_CONFIRM");
  if (ask?.type !== "REQUIRE_USER_CONFIRM") throw new Error("the demo's save_note did not ask");
  const files = await client.workspaceFiles(session.sessionId);
  expect(files.entries.map((e) => e.path).sort()).toEqual(["notes.txt", "todo.md"]);
  const call = ask.toolCalls[0];
  await events(
    client.confirm(session.sessionId, {
      replyId: ask.replyId,
      answers: [{ toolCallId: call?.id ?? "", confirmed: false }],
    }),
  );

  // The reply ended: the extractor remembered one fact, recalled as a hint in the next reply.
  await expect
    .poll(async () => (await client.memories()).memories.map((m) => m.text), { timeout: 10_000 })
    .toEqual(["Tried the agentscope demo console."]);
  const second = await events(client.send(session.sessionId, "what did I try in the demo console?"));
  expect(
    second.some((e) => e.type === "HINT_BLOCK" && e.text.includes("Tried the agentscope demo console.")),
  ).toBe(true);
}, 30_000);

it("does not add the sample base twice (a restarted demo on the same store keeps the one it has)", async () => {
  const knowledge = server.knowledge;
  if (!knowledge) throw new Error("the demo has no knowledge service");
  expect(await seedDemoKnowledge(knowledge, LOCAL_USER)).toBe(false);
  expect((await knowledge.list(LOCAL_USER)).map((base) => base.name)).toEqual(["demo-handbook"]);
  // Another user of the same server has none until they make one.
  expect(await knowledge.list("someone-else")).toEqual([]);
});
