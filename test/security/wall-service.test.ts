import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { type RunningServer, startServer } from "../../src/app/server/start-server.js";
import type { Msg } from "../../src/message/index.js";
import { blocksOf } from "../../src/message/index.js";
import { ScriptedModel } from "../../src/testing/index.js";
import { reportMissingService } from "../support/services.js";
import { bubblewrapMissing, tempDir } from "../workspace/helpers.js";

/**
 * Issue #35 through the service, sandboxed (the default where bubblewrap runs): bob attacks alice's
 * workspace and his own deny rule with the REST confirmation route. What the analysis misjudges must
 * stay inside bob's sandbox; an edited approval is decided again.
 */
const missing = await bubblewrapMissing();

describe("the service under attack (REST answers, sandboxed workspaces)", () => {
  if (missing) return reportMissingService(missing);
  const { dir: dataDir, cleanup } = tempDir("wall-service-");
  let server: RunningServer;
  afterAll(async () => {
    await server?.close();
    cleanup();
  });
  const sessions = join(dataDir, "workspaces", "sessions");
  const aliceRoot = join(sessions, "s-alice-1");
  const bobRoot = join(sessions, "s-bob-1");
  const bashCall = (id: string, command: string) => ({ id, name: "Bash", input: { command } });
  const readAlice = `cat ${join(aliceRoot, "notes.txt")} ../s-alice-1/notes.txt`;
  const model = new ScriptedModel([
    { toolCalls: [bashCall("call_edit", "touch notes.txt")] },
    { text: "ran" },
    // A read-only verdict that is wrong (gawk indirect call): it runs, but only inside bob's sandbox.
    { toolCalls: [bashCall("call_awk", `awk 'BEGIN{f="system"; @f("${readAlice}")}'`)] },
    { text: "ran" },
    { toolCalls: [bashCall("call_edit_awk", "touch notes.txt")] },
    { text: "ran" },
  ]);
  const as = (token: string, init: RequestInit = {}): RequestInit => ({
    ...init,
    headers: { authorization: `Bearer ${token}`, "content-type": "application/json", ...init.headers },
  });
  const post = async (path: string, body: unknown) => {
    const res = await fetch(`${server.url}${path}`, {
      ...as("tok-bob", {
        method: "POST",
        body: JSON.stringify(body),
        headers: { accept: "text/event-stream" },
      }),
    });
    const text = await res.text();
    expect([200, 201], text).toContain(res.status);
  };
  const lastResults = async () => {
    const res = await fetch(`${server.url}/v1/sessions/bob-1/messages`, as("tok-bob"));
    const { messages } = (await res.json()) as { messages: Msg[] };
    return blocksOf(messages.at(-1)!, "tool_result").map((r) => ({
      state: r.state,
      output: String(r.output),
    }));
  };
  /** Bob answers yes (unchanged) to whatever his session still asks about this call. */
  const approveWhileAsked = async (toolCallId: string) => {
    for (let round = 0; round < 3; round++) {
      const status = await fetch(`${server.url}/v1/sessions/bob-1/status`, as("tok-bob"));
      if (((await status.json()) as { waitingFor?: string }).waitingFor !== "user_confirm") return;
      await post("/v1/sessions/bob-1/confirm", { answers: [{ toolCallId, confirmed: true }] });
    }
  };
  const answer = (toolCallId: string, command: string) =>
    post("/v1/sessions/bob-1/confirm", {
      answers: [{ toolCallId, confirmed: true, input: JSON.stringify({ command }) }],
    });

  it("starts with alice's secret in her workspace and a victim file in bob's", async () => {
    server = await startServer({
      config: {
        agents: [
          { name: "worker", model, tools: ["Bash"], permission: { mode: "default", deny: ["Bash(rm:*)"] } },
        ],
      },
      store: `sqlite:${join(dataDir, "state.db")}`,
      port: 0,
      tokensEnv: "tok-alice:alice,tok-bob:bob",
      workspaces: { dataDir },
    });
    mkdirSync(aliceRoot, { recursive: true });
    writeFileSync(join(aliceRoot, "notes.txt"), "ALICE-SECRET-35");
    for (const [token, sessionId] of [
      ["tok-alice", "alice-1"],
      ["tok-bob", "bob-1"],
    ] as const) {
      const res = await fetch(
        `${server.url}/v1/sessions`,
        as(token, { method: "POST", body: JSON.stringify({ sessionId }) }),
      );
      expect(res.status).toBe(201);
    }
    mkdirSync(bobRoot, { recursive: true });
    writeFileSync(join(bobRoot, "victim.txt"), "precious");
  });

  it("an approved `touch notes.txt` edited into reading alice's file is refused or reads nothing", async () => {
    await post("/v1/sessions/bob-1/replies", { text: "go" });
    await answer("call_edit", readAlice);
    // The edit needs a different ask (a path outside the working directory); bob approves it too.
    await approveWhileAsked("call_edit");
    const results = await lastResults();
    // Bash declares no paths to the boundary (docs/permissions.md "Not covered"): the command runs,
    // and the sandbox is what keeps alice's files out of sight.
    expect(results).toHaveLength(1);
    expect(results[0]!.output).toMatch(/No such file or directory/);
    expect(results[0]!.output).not.toContain("ALICE-SECRET-35");
  });

  it("a gawk indirect call reading alice's file shows nothing of it, run or refused", async () => {
    await post("/v1/sessions/bob-1/replies", { text: "go" });
    // Read-only (it runs at once), asked (bob approves), or denied as a hidden command under the
    // deny rule: whichever, alice's file is never shown.
    await approveWhileAsked("call_awk");
    const results = await lastResults();
    expect(results).toHaveLength(1);
    expect(results.map((r) => r.output).join("\n")).not.toContain("ALICE-SECRET-35");
  });

  it("an approval edited (REST answers[].input) into the gawk indirect call removes bob's victim despite deny Bash(rm:*)", async () => {
    await post("/v1/sessions/bob-1/replies", { text: "go" });
    await answer("call_edit_awk", `awk 'BEGIN{f="system"; @f("rm -f victim.txt")}'`);
    expect(existsSync(join(bobRoot, "victim.txt"))).toBe(true);
  });
});
