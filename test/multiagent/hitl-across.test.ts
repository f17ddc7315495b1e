import { execFile } from "node:child_process";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";
import { type AgentEvent, foldEvents, userConfirmResult, userInterrupt } from "../../src/event/index.js";
import { blocksOf, type Msg, textOf, userMsg } from "../../src/message/index.js";
import { foldSubRun } from "../../src/multiagent/index.js";
import { parseAgentState } from "../../src/state/index.js";
import { parentWithHelper } from "./fixtures/team-agents.js";
import { collect, confirmOf } from "./helpers.js";

const run = promisify(execFile);

function setup() {
  const dir = mkdtempSync(join(tmpdir(), "agentscope-subhitl-"));
  const logFile = join(dir, "notes.log");
  writeFileSync(logFile, "");
  return { dir, logFile };
}

const confirm = (replyId: string, confirmed = true) =>
  userConfirmResult({
    replyId,
    confirmResults: [
      { confirmed, toolCall: { id: "call_note", name: "write_note", input: '{"text":"buy milk"}' } },
    ],
  });

describe("HITL across the sub-agent boundary", () => {
  it("a sub-agent's ask pauses the parent; the answer, routed by the sub-run's replyId, resumes both; the tool runs once", async () => {
    const { logFile } = setup();
    const main = parentWithHelper(logFile);
    const first = await collect(main.replyStream(userMsg("remember to buy milk")));
    const parentId = first[0]!.replyId;
    const ask = confirmOf(first);
    expect(ask.source).toBe("main/helper");
    expect(ask.replyId).not.toBe(parentId);
    expect(ask.toolCalls[0]).toMatchObject({ id: "call_note", name: "write_note" });
    expect(first.some((e) => e.type === "REPLY_END")).toBe(false);
    expect(main.state.replyContext).toMatchObject({
      replyId: parentId,
      waitingFor: "user_confirm",
      suspended: { [ask.replyId]: { toolCallId: "call_helper", waitingFor: "user_confirm" } },
    });
    // The parent's call has its result open (running); a new message is refused while it waits.
    expect(blocksOf(main.state.context.at(-1)!, "tool_result")[0]!.state).toBe("running");
    await expect(main.replyStream(userMsg("hi")).next()).rejects.toThrow(/waiting for a confirmation/);
    expect(readFileSync(logFile, "utf8")).toBe("");

    const second = await collect(main.replyStream(confirm(ask.replyId)));
    expect(readFileSync(logFile, "utf8")).toBe("buy milk\n");
    expect(second.filter((e) => e.replyId === ask.replyId).every((e) => e.source === "main/helper")).toBe(
      true,
    );
    const final = main.state.context.at(-1)!;
    expect(final.id).toBe(parentId);
    expect(final.finishedReason).toBe("completed");
    expect(blocksOf(final, "tool_result")[0]).toMatchObject({ state: "success", output: "Noted." });
    expect(textOf(final)).toContain("The helper noted it.");
    expect(main.state.replyContext).toBeUndefined();
    // Both halves of the stream fold into the stored parent Msg, and the sub-run into its own.
    const all = [...first, ...second];
    expect(foldEvents(all)).toEqual(final);
    const sub = foldSubRun(all, { replyId: ask.replyId })!;
    expect(sub.finishedReason).toBe("completed");
    expect(blocksOf(sub, "tool_result")[0]).toMatchObject({ state: "success", output: "wrote buy milk" });
  });

  it("an answer that knows only the call id (as the service sends for a sub-run's call) keeps the call's arguments", async () => {
    const { logFile } = setup();
    const main = parentWithHelper(logFile);
    const ask = confirmOf(await collect(main.replyStream(userMsg("remember"))));
    await collect(
      main.replyStream(
        userConfirmResult({
          replyId: ask.replyId,
          confirmResults: [{ confirmed: true, toolCall: { id: "call_note", name: "", input: "{}" } }],
        }),
      ),
    );
    expect(readFileSync(logFile, "utf8")).toBe("buy milk\n");
  });

  it("an answer addressed to the parent's reply reaches the one sub-run that waits (a client that knew only the top level)", async () => {
    const { logFile } = setup();
    const main = parentWithHelper(logFile);
    const first = await collect(main.replyStream(userMsg("remember")));
    await collect(main.replyStream(confirm(first[0]!.replyId)));
    expect(readFileSync(logFile, "utf8")).toBe("buy milk\n");
    expect(main.state.context.at(-1)!.finishedReason).toBe("completed");
  });

  it("a refusal reaches the sub-agent; the parent goes on with the sub-agent's answer", async () => {
    const { logFile } = setup();
    const main = parentWithHelper(logFile);
    const ask = confirmOf(await collect(main.replyStream(userMsg("remember"))));
    await collect(main.replyStream(confirm(ask.replyId, false)));
    expect(readFileSync(logFile, "utf8")).toBe("");
    const final = main.state.context.at(-1)!;
    expect(final.finishedReason).toBe("completed");
    expect(blocksOf(final, "tool_result")[0]!.output).toBe("Noted.");
  });

  it("interrupting the paused parent interrupts the paused sub-agent and closes the call as interrupted", async () => {
    const { logFile } = setup();
    const main = parentWithHelper(logFile);
    const first = await collect(main.replyStream(userMsg("remember")));
    const parentId = first[0]!.replyId;
    const events = await collect(
      main.replyStream(userInterrupt({ replyId: parentId, reason: "never mind" })),
    );
    const subEnd = events.find((e) => e.type === "REPLY_END" && e.source === "main/helper");
    expect(subEnd).toMatchObject({ finishedReason: "interrupted" });
    const final = main.state.context.at(-1)!;
    expect(final.finishedReason).toBe("interrupted");
    const result = blocksOf(final, "tool_result")[0]!;
    expect(result.state).toBe("interrupted");
    expect(String(result.output)).toContain("helper was interrupted");
    expect(readFileSync(logFile, "utf8")).toBe("");
    expect(foldEvents([...first, ...events])).toEqual(final);
  });

  it("the pause survives a process restart: the state (with the sub-agent's) resumes in a child process; the tool runs once", async () => {
    const { dir, logFile } = setup();
    const main = parentWithHelper(logFile);
    const first = await collect(main.replyStream(userMsg("remember to buy milk")));
    const ask = confirmOf(first);
    const stateFile = join(dir, "state.json");
    // Through the store codec's validation, as a store would load it.
    writeFileSync(stateFile, JSON.stringify(parseAgentState(JSON.stringify(main.state))));
    const child = await run(
      process.execPath,
      [
        "--import",
        "tsx",
        join(import.meta.dirname, "fixtures/resume-child.ts"),
        stateFile,
        logFile,
        ask.replyId,
      ],
      { cwd: join(import.meta.dirname, "../.."), timeout: 30_000 },
    );
    const { events, final } = JSON.parse(child.stdout) as { events: AgentEvent[]; final: Msg };
    expect(final.id).toBe(first[0]!.replyId);
    expect(final.finishedReason).toBe("completed");
    expect(blocksOf(final, "tool_result")[0]).toMatchObject({ state: "success", output: "Noted." });
    expect(readFileSync(logFile, "utf8")).toBe("buy milk\n");
    expect(foldEvents([...first, ...events])).toEqual(final);
  }, 40_000);
});
