import { execFile } from "node:child_process";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";
import { type Msg, textOf, userMsg } from "../../src/message/index.js";
import { noteAgent } from "./fixtures/note-agent.js";
import { collect } from "./helpers.js";

const run = promisify(execFile);

describe("a pause lives in agent.state alone", () => {
  it("a reply paused in this process resumes in a child process that loaded the JSON state; the tool runs once", async () => {
    const dir = mkdtempSync(join(tmpdir(), "agentscope-resume-"));
    const logFile = join(dir, "notes.log");
    writeFileSync(logFile, "");
    const agent = noteAgent(logFile, [
      { toolCalls: [{ name: "write_note", input: { text: "remember milk" } }] },
    ]);
    const events = await collect(agent.replyStream(userMsg("note: remember milk")));
    expect(events.at(-1)!.type).toBe("REQUIRE_USER_CONFIRM");
    const stateFile = join(dir, "state.json");
    writeFileSync(stateFile, JSON.stringify(agent.state));

    const child = await run(
      process.execPath,
      ["--import", "tsx", join(import.meta.dirname, "fixtures/resume-child.ts"), stateFile, logFile],
      { cwd: join(import.meta.dirname, "../.."), timeout: 30_000 },
    );
    const { final } = JSON.parse(child.stdout) as { final: Msg };
    expect(final.id).toBe(events[0]!.replyId);
    expect(final.finishedReason).toBe("completed");
    expect(textOf(final)).toBe("All done.");
    expect(readFileSync(logFile, "utf8")).toBe("remember milk\n");
  }, 40_000);
});
