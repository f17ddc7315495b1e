import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type RunningServer, startServer } from "../../src/app/server/start-server.js";
import { AgentScopeClient } from "../../src/client/index.js";
import { ScriptedModel } from "../../src/testing/index.js";
import { clerkTools } from "./console/studio-fixture.js";

const ALICE = "tok-studio-alice";
const BOB = "tok-studio-bob";

/** The studio's routes at the HTTP edge: owners only, every bad input a 4xx that names it. */
describe("studio routes: the agent inspector, state, tool playground and eval case", () => {
  let server: RunningServer;
  let alice: AgentScopeClient;
  let bob: AgentScopeClient;
  let sessionId: string;

  beforeAll(async () => {
    server = await startServer({
      config: {
        agents: [
          {
            name: "clerk",
            systemPrompt: "You are the clerk.",
            model: new ScriptedModel([]),
            tools: clerkTools(),
          },
        ],
      },
      store: "memory:",
      port: 0,
      tokensEnv: `${ALICE}:alice,${BOB}:bob`,
      workspaces: false,
    });
    alice = new AgentScopeClient({ baseUrl: server.url, token: ALICE });
    bob = new AgentScopeClient({ baseUrl: server.url, token: BOB });
    ({ sessionId } = await alice.createSession({ title: "studio" }));
  }, 30_000);

  afterAll(async () => {
    await server?.close();
  });

  /** `<status> <the service's message>` of a refused call (200 when it succeeds). */
  const status = (call: () => Promise<unknown>) =>
    call().then(
      () => "200",
      (error: { status?: number; message?: string }) =>
        `${error.status} ${(error.message ?? "").replace(/^.*? failed \(\d+ \w+\): /, "")}`,
    );

  it("serves the owner: the profile (no workspace on this server) and the stored state", async () => {
    const profile = await alice.inspectAgent(sessionId);
    expect(profile.systemPrompt).toBe("You are the clerk.");
    expect(profile.tools.map((t) => t.name)).toEqual(["lookup_order", "refund"]);
    expect(profile.workspace).toBeUndefined();
    const state = await alice.sessionState(sessionId);
    expect(state.version).toBe(1);
    expect(state.state.sessionId).toBe(sessionId);
  });

  it("another user's session is a 404 on every studio route", async () => {
    for (const call of [
      () => bob.inspectAgent(sessionId),
      () => bob.sessionState(sessionId),
      () => bob.sessionState(sessionId, { checkpoint: "cp-1" }),
      () => bob.sessionEvalCase(sessionId),
      () => bob.runTool(sessionId, "lookup_order", { input: { id: "A1" } }),
    ])
      expect(await status(call)).toMatch(/^404 session ".*" does not exist/);
  });

  it("bad input is a 4xx that names what is wrong", async () => {
    expect(await status(() => alice.runTool(sessionId, "drop_tables", { input: {} }))).toMatch(
      /^404 .*no tool "drop_tables"/,
    );
    expect(await status(() => alice.runTool(sessionId, "refund", { input: { id: "A1" } }))).toMatch(
      /^400 input: invalid arguments for refund/,
    );
    const noInput = () =>
      alice.request("POST", `/v1/sessions/${sessionId}/tools/refund/run`, { approved: true });
    expect(await status(noInput)).toMatch(/^400 .*input/);
    expect(await status(() => alice.sessionEvalCase(sessionId, { caseId: "no spaces" }))).toMatch(
      /^400 caseId/,
    );
    expect(await status(() => alice.sessionEvalCase(sessionId))).toMatch(/^409 .*has no finished reply/);
    // A checkpoint's state needs a server that keeps checkpoints (this one does not).
    expect(await status(() => alice.sessionState(sessionId, { checkpoint: "cp-1" }))).toMatch(
      /^409 this server keeps no checkpoints/,
    );
  });
});
