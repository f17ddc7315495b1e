import { execFile } from "node:child_process";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { Agent } from "../../../src/agent/index.js";
import { EventRenderer } from "../../../src/app/cli/render-events.js";
import { replayTrace } from "../../../src/app/cli/replay.js";
import { userMsg } from "../../../src/message/index.js";
import { ScriptedModel } from "../../../src/testing/index.js";
import { TraceFileError, writeTrace } from "../../../src/trace/index.js";
import { weather } from "../../agent/helpers.js";

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "agentscope-replay-"));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

function sink() {
  const chunks: string[] = [];
  return { chunks, write: (text: string) => chunks.push(text), text: () => chunks.join("") };
}

describe("agentscope replay", () => {
  it.each([false, true])("prints a trace exactly as the live stream rendered (color %s)", async (color) => {
    const file = join(dir, "reply.jsonl");
    const model = new ScriptedModel([
      { thinking: "checking", toolCalls: [{ name: "get_weather", input: { city: "Paris" } }] },
      { toolCalls: [{ name: "no_such_tool", input: {} }] },
      { text: "It is sunny in Paris.\nEnjoy!" },
    ]);
    const agent = new Agent({ name: "assistant", model, toolkit: [weather] });
    const live = new EventRenderer({ color });
    let shown = "";
    for await (const event of writeTrace(agent.replyStream(userMsg("weather?")), file))
      shown += live.render(event);

    const out = sink();
    const count = await replayTrace(file, out, { color });
    expect(out.text()).toBe(shown);
    expect(shown).toContain("→ get_weather");
    expect(shown).toContain("sunny in Paris");
    expect(count).toBeGreaterThan(10);
  });

  it("stops at a corrupt line with an error naming it, after printing what came before", async () => {
    const file = join(dir, "bad.jsonl");
    const start = {
      type: "REPLY_START",
      id: "e1",
      createdAt: "t",
      replyId: "r",
      sessionId: "s",
      name: "a",
      role: "assistant",
    };
    const text = [
      { type: "TEXT_BLOCK_START", id: "e2", createdAt: "t", replyId: "r", blockId: "b" },
      {
        type: "TEXT_BLOCK_DELTA",
        id: "e3",
        createdAt: "t",
        replyId: "r",
        blockId: "b",
        delta: "partial answer",
      },
    ];
    await writeFile(file, [start, ...text].map((e) => JSON.stringify(e)).join("\n") + "\nnot json\n");
    const out = sink();
    const error = await replayTrace(file, out).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TraceFileError);
    expect((error as Error).message).toMatch(/bad\.jsonl:4: /);
    expect(out.text()).toContain("partial answer");
  });

  it("runs as `agentscope replay FILE`, and a bad line exits 1 naming it", async () => {
    const file = join(dir, "cli.jsonl");
    const model = new ScriptedModel([
      { toolCalls: [{ name: "get_weather", input: { city: "Oslo" } }] },
      { text: "Cold in Oslo." },
    ]);
    const agent = new Agent({ name: "assistant", model, toolkit: [weather] });
    const live = new EventRenderer();
    let shown = "";
    for await (const event of writeTrace(agent.replyStream(userMsg("weather?")), file))
      shown += live.render(event);
    const cli = (args: string[]) =>
      promisify(execFile)(process.execPath, ["--import", "tsx", "src/app/cli/main.ts", ...args], {
        cwd: join(import.meta.dirname, "../../.."),
      });
    expect((await cli(["replay", file])).stdout).toBe(shown);

    await writeFile(
      file,
      `${JSON.stringify({ type: "REPLY_START", id: "e", createdAt: "t", replyId: "r" })}\n{oops\n`,
    );
    const failed = await cli(["replay", file]).catch((error: { code: number; stderr: string }) => error);
    expect(failed).toMatchObject({ code: 1 });
    expect((failed as { stderr: string }).stderr).toMatch(
      /^agentscope: .*cli\.jsonl:2: not a valid trace event/,
    );
    expect((failed as { stderr: string }).stderr).not.toContain("    at ");
  }, 30_000);
});
