import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { Agent } from "../../src/agent/index.js";
import { type AgentEvent, applyEvent } from "../../src/event/index.js";
import { userMsg } from "../../src/message/index.js";
import { ScriptedModel } from "../../src/testing/index.js";
import { jsonlTraceMiddleware, readTrace, TraceFileError, writeTrace } from "../../src/trace/index.js";
import { collect, weather } from "../agent/helpers.js";

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "agentscope-trace-"));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

function toolAgent() {
  const model = new ScriptedModel([
    { thinking: "let me check", toolCalls: [{ name: "get_weather", input: { city: "Paris" } }] },
    { text: "It is sunny in Paris.\nEnjoy!" },
  ]);
  return new Agent({ name: "assistant", model, toolkit: [weather] });
}

describe("JSONL traces", () => {
  it("writes one line per event, in order, and passes the stream through unchanged", async () => {
    const file = join(dir, "reply.jsonl");
    const agent = toolAgent();
    const events = await collect(writeTrace(agent.replyStream(userMsg("weather?")), file));
    const lines = (await readFile(file, "utf8")).split("\n");
    expect(lines.at(-1)).toBe("");
    expect(lines.slice(0, -1).map((line) => JSON.parse(line))).toEqual(events);
    expect(await readTrace(file)).toEqual(events);
  });

  it("a trace alone rebuilds the stored reply", async () => {
    const file = join(dir, "reply.jsonl");
    const agent = toolAgent();
    await collect(writeTrace(agent.replyStream(userMsg("weather?")), file));
    const events = await readTrace(file);
    const rebuilt = events.reduce<ReturnType<typeof applyEvent> | undefined>(
      (msg, event) => applyEvent(msg, event),
      undefined,
    );
    expect(rebuilt).toEqual(agent.state.context.at(-1));
  });

  it("appends replies to the same file and keeps what was written when the consumer stops early", async () => {
    const file = join(dir, "session.jsonl");
    const agent = toolAgent();
    const first = await collect(writeTrace(agent.replyStream(userMsg("weather?")), file));
    const model = new ScriptedModel([{ text: "a long answer that streams in many small pieces" }]);
    const second = new Agent({ name: "b", model });
    const seen: AgentEvent[] = [];
    for await (const event of writeTrace(second.replyStream(userMsg("hi")), file)) {
      seen.push(event);
      if (event.type === "TEXT_BLOCK_DELTA") break;
    }
    expect(await readTrace(file)).toEqual([...first, ...seen]);
  });

  it("a stream that fails still leaves its events on disk and keeps its own error", async () => {
    const file = join(dir, "failed.jsonl");
    async function* failing(): AsyncGenerator<AgentEvent> {
      yield {
        type: "REPLY_START",
        id: "e1",
        createdAt: "t",
        replyId: "r",
        sessionId: "s",
        name: "a",
        role: "assistant",
      };
      throw new Error("the stream broke");
    }
    await expect(collect(writeTrace(failing(), file))).rejects.toThrow("the stream broke");
    expect((await readTrace(file)).map((e) => e.id)).toEqual(["e1"]);
  });

  it("a corrupt line is an error naming the file and line number", async () => {
    const file = join(dir, "corrupt.jsonl");
    await collect(writeTrace(toolAgent().replyStream(userMsg("weather?")), file));
    const lines = (await readFile(file, "utf8")).split("\n");
    lines[4] = '{"type":"TEXT_BLOCK_DELTA","delta":'; // cut mid-write
    await writeFile(file, lines.join("\n"));
    const error = await readTrace(file).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TraceFileError);
    expect((error as TraceFileError).line).toBe(5);
    expect((error as Error).message).toContain(`${file}:5:`);
  });

  it("an event without a replyId, or of an unknown type, is rejected with its line", async () => {
    const file = join(dir, "bad.jsonl");
    const good = JSON.stringify({
      type: "REPLY_START",
      id: "e1",
      createdAt: "t",
      replyId: "r",
      sessionId: "s",
    });
    await writeFile(
      file,
      `${good}\n\n${JSON.stringify({ type: "TEXT_BLOCK_DELTA", id: "e2", createdAt: "t" })}\n`,
    );
    await expect(readTrace(file)).rejects.toThrow(/:3: .*replyId/);
    await writeFile(
      file,
      `${good}\n${JSON.stringify({ type: "NOPE", id: "e2", createdAt: "t", replyId: "r" })}\n`,
    );
    await expect(readTrace(file)).rejects.toThrow(/:2: .*unknown event type "NOPE"/);
  });

  it("a missing file is a TraceFileError that says so", async () => {
    const file = join(dir, "missing.jsonl");
    const error = await readTrace(file).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TraceFileError);
    expect((error as TraceFileError).line).toBeUndefined();
    expect((error as Error).message).toMatch(/^cannot read trace .*missing\.jsonl: ENOENT/);
  });

  it("accepts the Java type names on reading", async () => {
    const file = join(dir, "java.jsonl");
    await writeFile(
      file,
      `${JSON.stringify({ type: "AGENT_END", id: "e1", createdAt: "t", replyId: "r", finishedReason: "completed" })}\n`,
    );
    expect((await readTrace(file))[0]!.type).toBe("REPLY_END");
  });

  it("the middleware records every reply of each session to that session's file", async () => {
    const model = new ScriptedModel(
      Array.from({ length: 4 }, (_, i) => ({ text: `answer ${i}`, delayMs: 1 })),
    );
    const agent = new Agent({
      name: "assistant",
      model,
      middlewares: [jsonlTraceMiddleware({ file: ({ sessionId }) => join(dir, `${sessionId}.jsonl`) })],
    });
    const one = agent.createState("one");
    const two = agent.createState("two");
    const streams = await Promise.all([
      collect(agent.replyStream(userMsg("a"), { state: one })),
      collect(agent.replyStream(userMsg("b"), { state: two })),
    ]);
    const later = await collect(agent.replyStream(userMsg("c"), { state: one }));
    expect(await readTrace(join(dir, "one.jsonl"))).toEqual([...streams[0]!, ...later]);
    expect(await readTrace(join(dir, "two.jsonl"))).toEqual(streams[1]);
  });
});
