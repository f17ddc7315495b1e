import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type RunningServer, startServer } from "../../src/app/server/start-server.js";
import type { DecisionRecord } from "../../src/event/index.js";
import { decisionsFromCsv, decisionsFromJsonl } from "../../src/protocol/index.js";
import { conversationModel, recordTool } from "./fixtures/agents.js";
import { readSse } from "./helpers.js";

const tsx = createRequire(import.meta.url).resolve("tsx");
const main = fileURLToPath(new URL("../../src/app/cli/main.ts", import.meta.url));
const dir = mkdtempSync(join(tmpdir(), "agentscope-audit-"));

let server: RunningServer;
let sessionId: string;
let other: string;
let decisions: DecisionRecord[];
let otherDecisions: DecisionRecord[];

const get = (path: string, token: string) =>
  fetch(`${server.url}${path}`, { headers: { authorization: `Bearer ${token}` } });
const send = (path: string, token: string, body: unknown) =>
  fetch(`${server.url}${path}`, {
    method: "POST",
    headers: {
      authorization: `Bearer ${token}`,
      "content-type": "application/json",
      accept: "text/event-stream",
    },
    body: JSON.stringify(body),
  });

/** One reply in `sessionId` that pauses on an ask; the id of the call it asks about. */
async function ask(sessionId: string): Promise<string> {
  const frames = (
    await readSse(await send(`/v1/sessions/${sessionId}/replies`, "t-alice", { text: "record it" }))
  ).frames;
  return (frames.at(-1)!.data as { toolCalls: Array<{ id: string }> }).toolCalls[0]!.id;
}

beforeAll(async () => {
  server = await startServer({
    config: {
      agents: [{ name: "main", model: conversationModel(), tools: [recordTool()] }],
      store: `sqlite:${join(dir, "state.db")}`,
    },
    port: 0,
    tokensEnv: "t-alice:alice,t-bob:bob,t-root:root:admin",
  });
  const create = async () =>
    ((await (await send("/v1/sessions", "t-alice", {})).json()) as { sessionId: string }).sessionId;
  const decisionsOf = async (id: string) =>
    ((await (await get(`/v1/sessions/${id}/decisions`, "t-alice")).json()) as { decisions: DecisionRecord[] })
      .decisions;
  sessionId = await create();
  other = await create();
  // a refusal whose reason needs CSV quoting; in another session an approval with other arguments (an edit)
  const first = await ask(sessionId);
  await readSse(
    await send(`/v1/sessions/${sessionId}/confirm`, "t-alice", {
      answers: [{ toolCallId: first, confirmed: false, reason: 'not now, "later"\nmaybe' }],
    }),
  );
  const second = await ask(other);
  await readSse(
    await send(`/v1/sessions/${other}/confirm`, "t-alice", {
      answers: [{ toolCallId: second, confirmed: true, input: JSON.stringify({ note: "edited" }) }],
    }),
  );
  decisions = await decisionsOf(sessionId);
  otherDecisions = await decisionsOf(other);
});
afterAll(async () => {
  await server.close();
  rmSync(dir, { recursive: true, force: true });
});

const withSession = (records: DecisionRecord[], id = sessionId) =>
  records.map((r) => ({ ...r, sessionId: id }));
/** Both sessions' records, as a per-user export lists them: oldest first. */
const everything = () => [...withSession(decisions), ...withSession(otherDecisions, other)];

describe("the audit export", () => {
  it("has the records to export: asks, a refusal and an edit, by alice", () => {
    expect(decisions.map((d) => [d.outcome, d.actor])).toEqual([
      ["ask", "engine"],
      ["deny", "alice"],
    ]);
    expect(otherDecisions.map((d) => [d.outcome, d.actor])).toEqual([
      ["ask", "engine"],
      ["edit", "alice"],
    ]);
  });

  it("a session's export round-trips in JSON Lines and CSV: every decision, in order, as GET /v1/sessions/:id/decisions", async () => {
    const jsonl = await get(`/v1/decisions?session=${sessionId}`, "t-alice");
    expect(jsonl.headers.get("content-type")).toBe("application/x-ndjson");
    expect(decisionsFromJsonl(await jsonl.text())).toEqual(withSession(decisions));
    const csv = await get(`/v1/decisions?session=${sessionId}&format=csv`, "t-alice");
    expect(csv.headers.get("content-type")).toContain("text/csv");
    const text = await csv.text();
    expect(text.split("\r\n")[0]).toMatch(/^createdAt,sessionId,replyId,id,/);
    expect(decisionsFromCsv(text)).toEqual(withSession(decisions));
  });

  it("per user and period: the user's records; from/to bound them; another user's need the admin role", async () => {
    const all = decisionsFromJsonl(await (await get("/v1/decisions", "t-alice")).text());
    expect(all).toEqual(everything());
    const last = otherDecisions.at(-1)!.createdAt;
    const since = decisionsFromJsonl(await (await get(`/v1/decisions?from=${last}`, "t-alice")).text());
    expect(since.every((r) => r.createdAt >= last)).toBe(true);
    expect(since.at(-1)).toEqual(all.at(-1));
    expect(await (await get(`/v1/decisions?to=${decisions[0]!.createdAt}`, "t-alice")).text()).toBe("");
    expect(await (await get("/v1/decisions", "t-bob")).text()).toBe("");
    const refused = await get("/v1/decisions?user=alice", "t-bob");
    expect(refused.status).toBe(403);
    expect(await refused.text()).toContain("admin role");
    expect(decisionsFromJsonl(await (await get("/v1/decisions?user=alice", "t-root")).text())).toEqual(all);
    expect((await get(`/v1/decisions?session=${sessionId}`, "t-bob")).status).toBe(404);
    expect((await get("/v1/decisions?format=xml", "t-alice")).status).toBe(400);
    expect((await get("/v1/decisions?from=yesterday", "t-alice")).status).toBe(400);
  });

  it("agentscope audit prints the export of a served service (a session as CSV, a user as JSON Lines)", async () => {
    const cli = (args: string[], token: string) => {
      const child = spawn(process.execPath, ["--import", tsx, main, "audit", ...args, "--url", server.url], {
        env: { ...process.env, AGENTSCOPE_TOKEN: token },
        stdio: ["ignore", "pipe", "pipe"],
      });
      let stdout = "";
      let stderr = "";
      child.stdout.on("data", (d) => {
        stdout += d;
      });
      child.stderr.on("data", (d) => {
        stderr += d;
      });
      return new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) =>
        child.once("exit", (code) => resolve({ code, stdout, stderr })),
      );
    };
    const csv = await cli([sessionId, "--format", "csv"], "t-alice");
    expect(csv.code).toBe(0);
    expect(decisionsFromCsv(csv.stdout)).toEqual(withSession(decisions));
    const user = await cli(["--user", "alice"], "t-root");
    expect(decisionsFromJsonl(user.stdout)).toEqual(everything());
    const refused = await cli(["--user", "alice"], "t-bob");
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain("admin role");
  });
});
