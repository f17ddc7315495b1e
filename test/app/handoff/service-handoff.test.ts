import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { buildAgents } from "../../../src/app/server/config/build-agents.js";
import { wireMultiAgent } from "../../../src/app/server/config/build-multiagent.js";
import { ConfigError, parseServiceConfig } from "../../../src/app/server/config/service-config.js";
import { startServer } from "../../../src/app/server/start-server.js";
import type { Msg } from "../../../src/message/index.js";
import { ScriptedModel } from "../../../src/testing/index.js";
import { type Frame, json, readSse } from "../helpers.js";

const dir = mkdtempSync(join(tmpdir(), "agentscope-handoff-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const textOf = (msg: Msg | undefined) =>
  msg?.content.flatMap((b) => (b.type === "text" ? [b.text] : [])).join("") ?? "";

const STORES = [
  { name: "SQLite", url: () => `sqlite:${join(dir, "state.db")}` },
  { name: "PostgreSQL", url: () => "postgres://postgres@127.0.0.1:5432/test" },
];

describe.each(STORES)("a handoff in the service ($name)", ({ url }) => {
  it("switches the answering agent (the rest of the reply and the next turns), as an event, and after a restart", async () => {
    const store = url();
    const start = (triage: ScriptedModel, billing: ScriptedModel) =>
      startServer({
        config: {
          agents: [
            { name: "triage", model: triage, handoffs: ["billing"] },
            { name: "billing", model: billing },
          ],
        },
        store,
        port: 0,
        withoutOptionalRoutes: true,
      });
    const triage = new ScriptedModel([
      { toolCalls: [{ name: "handoff", input: { to: "billing", reason: "an invoice question" } }] },
    ]);
    const billing = new ScriptedModel([
      { text: "billing: your invoice is paid" },
      { text: "billing: turn two" },
    ]);
    let server = await start(triage, billing);
    const reply = (sessionId: string, text: string) =>
      fetch(`${server.url}/v1/sessions/${sessionId}/replies`, {
        method: "POST",
        headers: { "content-type": "application/json", accept: "text/event-stream" },
        body: JSON.stringify({ text }),
      });
    const messages = async (sessionId: string) =>
      (await json(fetch(`${server.url}/v1/sessions/${sessionId}/messages`))).messages as Msg[];
    let sessionId = "";
    try {
      ({ sessionId } = await json(
        fetch(`${server.url}/v1/sessions`, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify({ agent: "triage" }),
        }),
      ));
      const frames = (await readSse(await reply(sessionId, "is my invoice paid?"), undefined, 15_000)).frames;
      const types = frames.map((f: Frame) => f.data?.type);
      const handoff = frames.find((f) => f.data?.type === "CUSTOM");
      expect(handoff?.data).toMatchObject({
        name: "handoff",
        value: { from: "triage", to: "billing", reason: "an invoice question" },
      });
      // The triage reply ends (stopped), then the handoff, then billing's reply in the same run.
      expect(types.filter((t) => t === "REPLY_END")).toHaveLength(2);
      expect(types.indexOf("CUSTOM")).toBeGreaterThan(types.indexOf("REPLY_END"));
      expect(triage.calls).toHaveLength(1);
      expect(billing.calls).toHaveLength(1);
      // Billing answers with the history: the user's question and triage's handoff call.
      expect(JSON.stringify(billing.calls[0]!.messages)).toContain("is my invoice paid?");
      const afterFirst = await messages(sessionId);
      expect(afterFirst.at(-1)?.name).toBe("billing");
      expect(textOf(afterFirst.at(-1))).toBe("billing: your invoice is paid");

      await readSse(await reply(sessionId, "thanks, and the next one?"), undefined, 15_000);
      expect(triage.calls).toHaveLength(1);
      expect(billing.calls).toHaveLength(2);
    } finally {
      await server.close();
    }

    // A new process over the same store: the session is still answered by billing.
    const triageAgain = new ScriptedModel([{ text: "triage must not answer" }]);
    const billingAgain = new ScriptedModel([{ text: "billing: after the restart" }]);
    server = await start(triageAgain, billingAgain);
    try {
      await readSse(await reply(sessionId, "still there?"), undefined, 15_000);
      expect(triageAgain.calls).toHaveLength(0);
      expect(billingAgain.calls).toHaveLength(1);
      const last = (await messages(sessionId)).at(-1);
      expect(last?.name).toBe("billing");
      expect(textOf(last)).toBe("billing: after the restart");
    } finally {
      await server.close();
    }
  });
});

describe("handoffs in the service config", () => {
  const parse = (handoffs: string[]) =>
    parseServiceConfig({
      agents: [
        { name: "triage", model: new ScriptedModel([]), handoffs },
        { name: "billing", model: new ScriptedModel([]) },
      ],
    });
  const wire = async (handoffs: string[]) => {
    const parsed = parse(handoffs);
    const agents = await buildAgents(parsed.agents);
    wireMultiAgent(parsed.agents, parsed.teams, agents);
    return agents;
  };

  it("gives the agent a handoff tool to the agents it names", async () => {
    const agents = await wire(["billing"]);
    const triage = agents.find((a) => a.name === "triage")!;
    expect((triage.toolkit as { get(name: string): unknown }).get("handoff")).toBeDefined();
  });

  it("rejects unknown agent names, naming them, and a handoff to itself", async () => {
    await expect(wire(["billing", "legal", "sales"])).rejects.toThrow(ConfigError);
    await expect(wire(["billing", "legal", "sales"])).rejects.toThrow(/"legal", "sales"/);
    await expect(wire(["triage"])).rejects.toThrow(/cannot hand off to itself/);
  });
});
