import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { createApp } from "../../src/app/server/app.js";
import { createBackend } from "../../src/app/server/backend/create-backend.js";
import { buildAgents } from "../../src/app/server/config/build-agents.js";
import { parseServiceConfig } from "../../src/app/server/config/service-config.js";
import { parseTokenRoles, parseTokens } from "../../src/app/server/http/auth.js";
import { ServiceRuntime } from "../../src/app/server/runtime/service-runtime.js";
import { AgentScopeClient } from "../../src/client/index.js";
import { ScriptedModel } from "../../src/testing/index.js";
import { dropBackend } from "../state/drop-backend.js";
import { missingService, reportMissingService, runName } from "../support/services.js";
import { conversationModel, recordTool } from "./fixtures/agents.js";
import { readSse } from "./helpers.js";

const dir = mkdtempSync(join(tmpdir(), "agentscope-approvers-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const TOKENS = "t-alice:alice,t-ops:ops:admin+sre";

it("AGENTSCOPE_TOKENS gives roles after a second colon; a malformed entry names the form", () => {
  expect([...parseTokens(TOKENS)]).toEqual([
    ["t-alice", "alice"],
    ["t-ops", "ops"],
  ]);
  expect([...parseTokenRoles(`${TOKENS},t-ops2:ops:oncall`)]).toEqual([
    ["alice", []],
    ["ops", ["admin", "sre", "oncall"]],
  ]);
  expect(() => parseTokens("a:b:c:d")).toThrow("is not token:user or token:user:role+role");
  expect(() => parseTokens("t:u:admin++x")).toThrow("AGENTSCOPE_TOKENS");
});

it("the config's agents take approver policies and roles; a bad policy is refused naming the agent", async () => {
  const parsed = parseServiceConfig({
    agents: [
      {
        name: "ops",
        model: new ScriptedModel([]),
        approvers: [{ name: "two-admins", tools: ["Bash"], roles: ["admin"], quorum: 2 }],
      },
    ],
    roles: { alice: ["admin"] },
  });
  expect(parsed.roles).toEqual({ alice: ["admin"] });
  const [agent] = await buildAgents(parsed.agents);
  expect(agent!.approvers?.policies).toEqual([
    { name: "two-admins", tools: ["Bash"], roles: ["admin"], quorum: 2 },
  ]);
  const bad = parseServiceConfig({
    agents: [{ name: "ops", model: new ScriptedModel([]), approvers: [{ name: "q", quorum: 3 }] }],
  });
  await expect(buildAgents(bad.agents)).rejects.toThrow(
    'agents "ops": approvers.policies[0].quorum: a quorum needs users or roles',
  );
  expect(() =>
    parseServiceConfig({
      agents: [{ name: "ops", model: new ScriptedModel([]), approvers: [{ name: "q", who: 1 }] }],
    }),
  ).toThrow("who");
});

const kinds = [
  { name: "SQLite", url: () => `sqlite:${join(dir, `${runName("db")}.db`)}` },
  { name: "Redis", url: () => "redis://127.0.0.1:6379", port: 6379 },
  { name: "PostgreSQL", url: () => "postgres://postgres@127.0.0.1:5432/test", port: 5432 },
];

for (const kind of kinds) {
  describe(`approver policies in the service on ${kind.name}`, async () => {
    const missing = kind.port ? await missingService(kind.name, kind.port) : undefined;
    if (missing) {
      reportMissingService(missing);
      return;
    }
    const url = kind.url();
    const prefix = kind.name === "Redis" ? `${runName("apr")}:` : `${runName("apr")}_`;
    const backend = await createBackend(url, { prefix });
    const calls = { count: 0 };
    const roles = parseTokenRoles(TOKENS);
    const runtime = new ServiceRuntime({
      backend,
      agents: [
        {
          name: "main",
          model: conversationModel(),
          toolkit: [recordTool(undefined, calls)],
          approvers: { policies: [{ name: "records-need-admin", tools: ["record"], roles: ["admin"] }] },
        },
      ],
      rolesOf: (user) => roles.get(user) ?? [],
    });
    const app = createApp(runtime, { tokens: parseTokens(TOKENS) });
    const fetchApp: typeof fetch = (input, init) =>
      Promise.resolve(app.request(String(input).replace("http://service", ""), init));
    const client = (token: string) =>
      new AgentScopeClient({ baseUrl: "http://service", token, fetch: fetchApp });
    afterAll(async () => {
      await runtime.close();
      await dropBackend(url, prefix);
    });

    async function pausedAs(token: string) {
      const { sessionId } = await client(token).createSession();
      const reply = await app.request(`/v1/sessions/${sessionId}/replies`, {
        method: "POST",
        headers: {
          authorization: `Bearer ${token}`,
          "content-type": "application/json",
          accept: "text/event-stream",
        },
        body: JSON.stringify({ text: "record it" }),
      });
      const ask = (await readSse(reply)).frames.at(-1)!.data as { toolCalls: Array<{ id: string }> };
      return { sessionId, callId: ask.toolCalls[0]!.id };
    }

    const approve = async (token: string, sessionId: string, callId: string) => {
      const response = await app.request(`/v1/sessions/${sessionId}/confirm`, {
        method: "POST",
        headers: {
          authorization: `Bearer ${token}`,
          "content-type": "application/json",
          accept: "text/event-stream",
        },
        body: JSON.stringify({ answers: [{ toolCallId: callId, confirmed: true }] }),
      });
      return (await readSse(response)).frames;
    };

    it("an owner without the role is refused, on record with the policy's name; the call waits and never ran", async () => {
      const before = calls.count;
      const { sessionId, callId } = await pausedAs("t-alice");
      const frames = await approve("t-alice", sessionId, callId);
      expect(frames.map((f) => f.event)).not.toContain("USER_CONFIRM_RESULT");
      expect(frames.at(-1)?.event).toBe("REQUIRE_USER_CONFIRM");
      const status = await client("t-alice").status(sessionId);
      expect(status).toMatchObject({ running: false, waitingFor: "user_confirm" });
      expect(
        (await client("t-alice").decisions(sessionId)).map((r) => [r.outcome, r.actor, r.policy]),
      ).toEqual([
        ["ask", "engine", undefined],
        ["policy_refusal", "alice", "records-need-admin"],
        ["ask", "engine", undefined],
      ]);
      expect(calls.count).toBe(before);
    });

    it("an owner whose token configuration gives the role approves, and the record names the policy", async () => {
      const before = calls.count;
      const { sessionId, callId } = await pausedAs("t-ops");
      const frames = await approve("t-ops", sessionId, callId);
      expect(frames.at(-1)?.data).toMatchObject({ type: "REPLY_END", finishedReason: "completed" });
      const approved = (await client("t-ops").decisions(sessionId)).at(-1);
      expect(approved).toMatchObject({
        outcome: "approve",
        actor: "ops",
        channel: "rest",
        policy: "records-need-admin",
      });
      expect(calls.count).toBe(before + 1);
    });
  });
}
