import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { type RunningServer, startServer } from "../../src/app/server/start-server.js";
import { narrowPermission } from "../../src/multiagent/index.js";
import { decidePermission } from "../../src/permission/index.js";
import { ScriptedModel } from "../../src/testing/index.js";
import { builtinTools } from "../../src/tool/builtin/index.js";
import { reportMissingService } from "../support/services.js";
import { bubblewrapMissing, tempDir } from "../workspace/helpers.js";

/**
 * Issue #35: a sub-agent run by a sandboxed parent stays as contained as the parent. Bob's agent
 * delegates to a helper whose permission is bypass; the helper tries to leave bob's workspace with
 * Bash (another session's file, a host file, a write to the host), Write and Read. It must work in
 * bob's workspace, inside bob's sandbox, and under bob's boundary.
 */
const missing = await bubblewrapMissing();

describe("a sub-agent of a sandboxed session", () => {
  if (missing) return reportMissingService(missing);
  const { dir: dataDir, cleanup } = tempDir("wall-subagent-");
  let server: RunningServer;
  afterAll(async () => {
    delete process.env.WALL_SUBAGENT_ENV;
    await server?.close();
    cleanup();
  });
  const sessions = join(dataDir, "workspaces", "sessions");
  const aliceRoot = join(sessions, "s-alice-1");
  const bobRoot = join(sessions, "s-bob-1");
  const hostSecret = join(dataDir, "host-secret.txt");
  const hostProbe = join(dataDir, "written-by-helper.txt");
  const reachOut = `cat ${join(aliceRoot, "notes.txt")} ../s-alice-1/notes.txt ${hostSecret}; echo x > ${hostProbe}`;
  const lookAround = "pwd > where.txt; env > env.txt; ps -e --no-headers | wc -l > processes.txt";
  const helper = new ScriptedModel([
    {
      toolCalls: [
        { id: "h1", name: "Bash", input: { command: reachOut } },
        { id: "h2", name: "Bash", input: { command: lookAround } },
        { id: "h3", name: "Write", input: { path: join(aliceRoot, "pwned.txt"), content: "x" } },
        { id: "h4", name: "Read", input: { path: join(aliceRoot, "notes.txt") } },
      ],
    },
    { text: "helped" },
  ]);
  const worker = new ScriptedModel([
    { toolCalls: [{ id: "w1", name: "helper", input: { prompt: "break out" } }] },
    { text: "done" },
  ]);
  const as = (token: string, init: RequestInit = {}): RequestInit => ({
    ...init,
    headers: { authorization: `Bearer ${token}`, "content-type": "application/json", ...init.headers },
  });

  it("runs the helper's tools in bob's workspace and sandbox, never in alice's or on the host", async () => {
    writeFileSync(hostSecret, "HOST-SECRET-35");
    process.env.WALL_SUBAGENT_ENV = "in the service's environment only";
    server = await startServer({
      config: {
        agents: [
          {
            name: "worker",
            model: worker,
            tools: ["Bash"],
            permission: { mode: "bypass" },
            subagents: [{ agent: "helper", description: "Helps" }],
          },
          { name: "helper", model: helper, tools: ["Bash", "Read", "Write"], permission: { mode: "bypass" } },
        ],
      },
      store: `sqlite:${join(dataDir, "state.db")}`,
      port: 0,
      tokensEnv: "tok-alice:alice,tok-bob:bob",
      workspaces: { dataDir },
    });
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
    mkdirSync(aliceRoot, { recursive: true });
    writeFileSync(join(aliceRoot, "notes.txt"), "ALICE-SECRET-35");
    const res = await fetch(
      `${server.url}/v1/sessions/bob-1/replies`,
      as("tok-bob", {
        method: "POST",
        body: JSON.stringify({ text: "go" }),
        headers: { accept: "text/event-stream" },
      }),
    );
    const events = (await res.text())
      .split("\n")
      .filter((line) => line.startsWith("data: "))
      .map(
        (line) =>
          JSON.parse(line.slice(6)) as { type: string; toolCallId?: string; state?: string; delta?: string },
      );
    expect(res.status).toBe(200);
    const states = Object.fromEntries(
      events.filter((e) => e.type === "TOOL_RESULT_END").map((e) => [e.toolCallId, e.state]),
    );
    const outputs = events.map((e) => e.delta ?? "").join("");

    // Naming another session's or the host's files: denied by bob's boundary, which binds the helper.
    expect(states).toMatchObject({ h1: "denied", h2: "success", h3: "denied", h4: "denied", w1: "success" });
    expect(outputs).not.toContain("ALICE-SECRET-35");
    expect(outputs).not.toContain("HOST-SECRET-35");
    expect(existsSync(hostProbe)).toBe(false);
    expect(existsSync(join(aliceRoot, "pwned.txt"))).toBe(false);
    // What it may run runs in bob's workspace, in bob's sandbox: its own pid namespace, a scrubbed env.
    expect(readFileSync(join(bobRoot, "where.txt"), "utf8").trim()).toBe(bobRoot);
    expect(readFileSync(join(bobRoot, "env.txt"), "utf8")).not.toContain("WALL_SUBAGENT_ENV");
    expect(Number(readFileSync(join(bobRoot, "processes.txt"), "utf8"))).toBeLessThan(10);
    // The helper's session got no workspace of its own: it works in its parent's.
    expect(readdirSync(sessions).sort()).toEqual(["s-alice-1", "s-bob-1"]);
  });
});

describe("a sub-agent's own settings cannot widen its parent's", () => {
  const { dir: ws, cleanup } = tempDir("wall-subagent-narrow-");
  afterAll(cleanup);
  const write = builtinTools().find((tool) => tool.name === "Write")!;

  it("working directories all outside the parent's leave it in the parent's, not in the process's cwd", async () => {
    const parent = { mode: "accept_edits" as const, rules: [], workingDirectories: [ws] };
    const child = narrowPermission({ ...parent, workingDirectories: ["/nowhere/else"] }, parent);
    expect(child.workingDirectories).toEqual([ws]);
    // Before: [] — the process's cwd became the child's working directory, where accept_edits writes.
    const decision = await decidePermission(
      write,
      write.parse({ path: join(process.cwd(), "x.txt"), content: "x" }),
      child,
    );
    expect(decision.behavior).not.toBe("allow");
  });

  it("keeps the parent's boundary (no sandbox exemption); the child's own only when narrower", () => {
    const parent = {
      mode: "bypass" as const,
      rules: [],
      workingDirectories: [ws],
      boundary: { directory: ws, sandboxedTools: ["Bash"] },
    };
    const wider = narrowPermission(
      { ...parent, boundary: { directory: "/", sandboxedTools: ["Bash", "Read", "Write"] } },
      parent,
    );
    expect(wider.boundary).toEqual({ directory: ws });
    const inner = join(ws, "sub");
    const narrower = narrowPermission(
      { ...parent, boundary: { directory: inner, sandboxedTools: ["Write"] } },
      parent,
    );
    expect(narrower.boundary).toEqual({ directory: inner });
  });
});
