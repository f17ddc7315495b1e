import { existsSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { Agent } from "../../src/agent/index.js";
import { type AgentEvent, type RequireUserConfirmEvent, userConfirmResult } from "../../src/event/index.js";
import { blocksOf, type Msg, userMsg } from "../../src/message/index.js";
import { narrowPermission, subAgentTool } from "../../src/multiagent/index.js";
import { type PermissionOptions, ruleFromInput } from "../../src/permission/index.js";
import { ScriptedModel } from "../../src/testing/index.js";
import { bashTool } from "../../src/tool/builtin/bash.js";
import { collect } from "./helpers.js";

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function tempDir(): string {
  const dir = realpathSync(mkdtempSync(join(tmpdir(), "one-gate-sub-")));
  dirs.push(dir);
  return dir;
}

/** A parent whose sub-agent "worker" runs one Bash command with the real Bash tool. */
function parentOf(command: string, permission: PermissionOptions) {
  const worker = new Agent({
    name: "worker",
    model: new ScriptedModel([
      { toolCalls: [{ id: "call_bash", name: "Bash", input: { command } }] },
      { text: "worked" },
    ]),
    toolkit: [bashTool({ timeoutMs: 10_000 })],
  });
  return new Agent({
    name: "main",
    model: new ScriptedModel([
      { toolCalls: [{ id: "call_worker", name: "worker", input: { prompt: "do it" } }] },
      { text: "done" },
    ]),
    toolkit: [subAgentTool(worker, { description: "does work" })],
    permission,
  });
}

function asked(events: AgentEvent[]): RequireUserConfirmEvent {
  const event = events.find((e): e is RequireUserConfirmEvent => e.type === "REQUIRE_USER_CONFIRM");
  if (!event) throw new Error("no REQUIRE_USER_CONFIRM");
  return event;
}

const answer = (replyId: string, input: string) =>
  userConfirmResult({
    replyId,
    confirmResults: [{ confirmed: true, toolCall: { id: "call_bash", name: "Bash", input } }],
  });

/** The sub-run's tool results, from the parent's stream of the resumed reply. */
function subResults(events: AgentEvent[], subReplyId: string) {
  return events
    .filter((e) => e.replyId === subReplyId && e.type === "TOOL_RESULT_END")
    .map((e) => (e as Extract<AgentEvent, { type: "TOOL_RESULT_END" }>).state);
}

describe("one gate across the sub-agent boundary", () => {
  it("a sub-agent's approval edited into `rm` is refused under the parent's deny rule", async () => {
    const dir = tempDir();
    writeFileSync(join(dir, "victim.txt"), "precious");
    const main = parentOf("touch notes.txt", { workingDirectories: [dir], deny: ["Bash(rm:*)"] });
    const ask = asked(await collect(main.replyStream(userMsg("go"))));
    expect(ask.source).toBe("main/worker");
    const rest = await collect(
      main.replyStream(answer(ask.replyId, JSON.stringify({ command: "rm -f victim.txt" }))),
    );
    expect(existsSync(join(dir, "victim.txt"))).toBe(true);
    expect(subResults(rest, ask.replyId)).toEqual(["denied"]);
    expect(main.state.context.at(-1)!.finishedReason).toBe("completed");
  });

  it("a sub-agent's unchanged approval is denied by a deny rule the parent got while it waited", async () => {
    const dir = tempDir();
    const main = parentOf("touch notes.txt", { workingDirectories: [dir] });
    const ask = asked(await collect(main.replyStream(userMsg("go"))));
    main.state.permission.rules.push(ruleFromInput("deny:Bash(touch:*)"));
    const rest = await collect(
      main.replyStream(answer(ask.replyId, JSON.stringify({ command: "touch notes.txt" }))),
    );
    expect(existsSync(join(dir, "notes.txt"))).toBe(false);
    expect(subResults(rest, ask.replyId)).toEqual(["denied"]);
  });

  it("a parent call waiting on a sub-run is decided again when it continues: a deny since then ends it", async () => {
    const dir = tempDir();
    const main = parentOf("touch notes.txt", { workingDirectories: [dir] });
    const ask = asked(await collect(main.replyStream(userMsg("go"))));
    main.state.permission.rules.push(ruleFromInput("deny:worker"));
    await collect(main.replyStream(answer(ask.replyId, JSON.stringify({ command: "touch notes.txt" }))));
    expect(existsSync(join(dir, "notes.txt"))).toBe(false);
    const final = main.state.context.at(-1) as Msg;
    expect(blocksOf(final, "tool_result")).toEqual([
      expect.objectContaining({
        id: "call_worker",
        state: "denied",
        output: "Permission denied: denied by the rule worker",
      }),
    ]);
    expect(final.finishedReason).toBe("completed");
  });

  it("the parent's boundary binds the sub-run, in bypass mode too", async () => {
    const dir = tempDir();
    const elsewhere = tempDir();
    const main = parentOf(`touch ${join(elsewhere, "escaped.txt")}`, {
      mode: "bypass",
      workingDirectories: [dir],
      deny: ["Bash(rm:*)"],
    });
    main.state.permission.boundary = { directory: dir };
    const events = await collect(main.replyStream(userMsg("go")));
    expect(events.some((e) => e.type === "REQUIRE_USER_CONFIRM")).toBe(false);
    expect(existsSync(join(elsewhere, "escaped.txt"))).toBe(false);
    const sub = events.find((e) => e.source === "main/worker" && e.type === "TOOL_RESULT_END");
    expect(sub).toMatchObject({ state: "denied" });
    const final = main.state.context.at(-1) as Msg;
    expect(blocksOf(final, "tool_result")[0]!.state).toBe("success");
  });

  it("narrowPermission hands the parent's boundary down without its sandbox exemptions, and adds nothing twice", () => {
    const parent = {
      mode: "bypass" as const,
      rules: [ruleFromInput("deny:Bash(rm:*)")],
      workingDirectories: ["/srv/ws"],
      boundary: { directory: "/srv/ws", sandboxedTools: ["Bash"] },
    };
    const own = { mode: "bypass" as const, rules: [], workingDirectories: [], boundary: { directory: "/" } };
    const once = narrowPermission(own, parent);
    expect(once.boundary).toEqual({ directory: "/srv/ws" });
    const twice = narrowPermission(JSON.parse(JSON.stringify(once)), parent);
    expect(twice).toEqual(once);
  });
});
