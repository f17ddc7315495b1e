import { describe, expect, it } from "vitest";
import { z } from "zod";
import { Agent, type MiddlewareContext, type ToolCallRequest } from "../../src/agent/index.js";
import { blocksOf, dataBlock, textBlock, userMsg } from "../../src/message/index.js";
import { toolResultLimitMiddleware } from "../../src/middleware/index.js";
import { estimateTextTokens } from "../../src/model/core.js";
import { ScriptedModel } from "../../src/testing/index.js";
import { functionTool } from "../../src/tool/index.js";
import { collect } from "../agent/helpers.js";

/** Runs the hook alone: `value` is what the tool returned. */
async function limited(value: unknown, options: Parameters<typeof toolResultLimitMiddleware>[0]) {
  const middleware = toolResultLimitMiddleware(options);
  return middleware.onToolCall!({} as ToolCallRequest, {} as MiddlewareContext, async () => value);
}

async function drain(stream: unknown): Promise<unknown[]> {
  const out: unknown[] = [];
  for await (const chunk of stream as AsyncIterable<unknown>) out.push(chunk);
  return out;
}

const long = "abcdefgh".repeat(100); // 800 characters, 200 tokens

describe("toolResultLimitMiddleware", () => {
  it("leaves a result within the limit untouched (same value)", async () => {
    const value = { rows: [1, 2, 3] };
    expect(await limited(value, { maxTokens: 50 })).toBe(value);
    expect(await limited("short", { maxTokens: 50 })).toBe("short");
  });

  it("cuts a long string to the limit and says how much was cut", async () => {
    const out = (await limited(long, { maxTokens: 50 })) as string;
    expect(out.startsWith(long.slice(0, 200))).toBe(true);
    expect(out).toContain("[truncated: 150 of 200 tokens cut, limit 50]");
    expect(estimateTextTokens(out.slice(0, out.indexOf("\n[truncated")))).toBeLessThanOrEqual(50);
  });

  it("uses a custom marker, as a template or a function", async () => {
    expect(await limited(long, { maxTokens: 10, marker: " …({cut} cut, {kept} kept)" })).toBe(
      `${long.slice(0, 40)} …(190 cut, 10 kept)`,
    );
    const out = await limited(long, { maxTokens: 10, marker: (i) => `|${i.totalTokens}` });
    expect(out).toBe(`${long.slice(0, 40)}|200`);
  });

  it("cuts across text blocks and keeps data blocks", async () => {
    const image = dataBlock("iVBORw0KGgo=", "image/png");
    const out = (await limited([textBlock("a".repeat(40)), image, textBlock("b".repeat(80))], {
      maxTokens: 15,
    })) as Array<{ type: string; text?: string }>;
    expect(out.map((b) => b.type)).toEqual(["text", "data", "text", "text"]);
    expect(out[0]!.text).toBe("a".repeat(40));
    expect(out[2]!.text).toBe("b".repeat(20));
    expect(out[3]!.text).toContain("15 of 30 tokens cut");
  });

  it("cuts a JSON value over the limit as its JSON text", async () => {
    const value = { items: Array.from({ length: 100 }, (_, i) => `item-${i}`) };
    const out = await limited(value, { maxTokens: 20 });
    expect(typeof out).toBe("string");
    expect(out as string).toMatch(/^\{"items":\["item-0"/);
    expect(out as string).toContain("tokens cut, limit 20]");
  });

  it("cuts streamed output once the limit is spent, counting the rest for the marker", async () => {
    let produced = 0;
    async function* lines() {
      for (let i = 0; i < 10; i++) {
        produced += 1;
        yield "x".repeat(40); // 10 tokens each
      }
    }
    const chunks = await drain(await limited(lines(), { maxTokens: 25 }));
    expect(chunks).toEqual([
      "x".repeat(40),
      "x".repeat(40),
      "x".repeat(20),
      "\n[truncated: 75 of 100 tokens cut, limit 25]",
    ]);
    expect(produced).toBe(10);
  });

  it("does not split a surrogate pair at the cut", async () => {
    const out = (await limited("😀".repeat(100), { maxTokens: 3, marker: "" })) as string;
    expect(out.length % 2).toBe(0);
    expect([...out].every((ch) => ch === "😀")).toBe(true);
  });

  it("rejects a bad limit when it is created", () => {
    expect(() => toolResultLimitMiddleware({ maxTokens: -1 })).toThrow(/maxTokens must be an integer ≥ 0/);
  });
});

describe("toolResultLimitMiddleware in a reply", () => {
  it("the stored result and what the model reads next are both cut, streamed or not", async () => {
    const dump = functionTool({
      name: "dump",
      description: "prints a lot",
      input: z.object({ stream: z.boolean() }),
      readOnly: true,
      execute: ({ stream }) =>
        stream
          ? (async function* () {
              for (let i = 0; i < 50; i++) yield `line ${String(i).padStart(3, "0")}\n`;
            })()
          : long,
    });
    const model = new ScriptedModel([
      {
        toolCalls: [
          { id: "c1", name: "dump", input: { stream: false } },
          { id: "c2", name: "dump", input: { stream: true } },
        ],
      },
      { text: "done" },
    ]);
    const agent = new Agent({
      name: "a",
      model,
      toolkit: [dump],
      middlewares: [toolResultLimitMiddleware({ maxTokens: 20 })],
    });
    await collect(agent.replyStream(userMsg("go")));
    const results = blocksOf(agent.state.context.at(-1)!, "tool_result");
    expect(results.map((r) => r.state)).toEqual(["success", "success"]);
    expect(results[0]!.output).toBe(`${long.slice(0, 80)}\n[truncated: 180 of 200 tokens cut, limit 20]`);
    expect(results[1]!.output).toMatch(
      /^line 000\nline 001\n.*\n\[truncated: \d+ of \d+ tokens cut, limit 20\]$/s,
    );
    const seen = blocksOf(model.calls[1]!.messages.at(-1)!, "tool_result").map((r) => r.output);
    expect(seen).toEqual(results.map((r) => r.output));
  });
});
