import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  assistantMsg,
  blocksOf,
  dataBlock,
  firstBlock,
  hasBlock,
  type Msg,
  parseMsg,
  RoleViolationError,
  systemMsg,
  textBlock,
  textOf,
  userMsg,
  ValidationError,
} from "../../src/message/index.js";

describe("message factories", () => {
  it("wrap a plain string into a text block with ids and a timestamp", () => {
    const msg = userMsg("hello");
    expect(msg.role).toBe("user");
    expect(msg.content).toEqual([{ type: "text", id: expect.any(String), text: "hello" }]);
    expect(msg.id).toMatch(/^msg_/);
    expect(Number.isNaN(Date.parse(msg.createdAt))).toBe(false);
  });

  it("reject blocks a role may not hold, naming the role and the block type", () => {
    const thinking = { type: "thinking" as const, id: "t", thinking: "hmm" };
    expect(() => userMsg([thinking])).toThrow(RoleViolationError);
    expect(() => userMsg([thinking])).toThrow(/user message cannot hold a "thinking" block/);
    expect(() => systemMsg([dataBlock("AAAA", "image/png")])).toThrow(
      /system message cannot hold a "data" block/,
    );
    expect(() => assistantMsg([thinking, textBlock("ok")])).not.toThrow();
  });

  it("textOf joins text blocks with newlines; blocksOf, firstBlock and hasBlock filter by type", () => {
    const msg = userMsg([textBlock("a"), dataBlock("AAAA", "image/png"), textBlock("b")]);
    expect(textOf(msg)).toBe("a\nb");
    expect(textOf(userMsg([dataBlock("AAAA", "image/png")]))).toBe("");
    expect(blocksOf(msg, "text").map((b) => b.text)).toEqual(["a", "b"]);
    expect(firstBlock(msg, "data")?.source).toEqual({ type: "base64", mediaType: "image/png", data: "AAAA" });
    expect(firstBlock(msg, "tool_call")).toBeUndefined();
    expect(hasBlock(msg, "data")).toBe(true);
    expect(hasBlock(msg, "thinking")).toBe(false);
  });
});

describe("parseMsg", () => {
  const full: Msg = {
    ...assistantMsg([
      { type: "thinking", id: "t1", thinking: "plan", signature: "sig" },
      textBlock("answer"),
      { type: "tool_call", id: "c1", name: "ls", input: '{"path":"."}', state: "finished" },
      {
        type: "tool_result",
        id: "c1",
        name: "ls",
        output: [textBlock("a.txt"), dataBlock("AAAA", "image/png")],
        state: "success",
      },
      { type: "hint", id: "h1", text: "be brief" },
    ]),
    usage: { inputTokens: 3, outputTokens: 4 },
    finishedReason: "completed",
    structuredOutput: { ok: true },
  };

  it("round-trips through JSON", () => {
    expect(parseMsg(JSON.parse(JSON.stringify(full)))).toEqual(full);
    expect(parseMsg(JSON.stringify(full))).toEqual(full);
  });

  it("names the path of the first bad field", () => {
    const bad = JSON.parse(JSON.stringify(full));
    bad.content[3].output[1].source.mediaType = "";
    expect(() => parseMsg(bad)).toThrow(ValidationError);
    expect(() => parseMsg(bad)).toThrow(/content\[3\]\.output\[1\]\.source\.mediaType/);
  });

  it("rejects role violations and non-JSON input", () => {
    const bad = {
      ...userMsg("x"),
      content: [{ type: "tool_call", id: "c", name: "n", input: "{}", state: "pending" }],
    };
    expect(() => parseMsg(bad)).toThrow(/content\[0\]\.type: a user message cannot hold a "tool_call" block/);
    expect(() => parseMsg("{nope")).toThrow(/invalid Msg: \(root\): not JSON/);
  });

  it("round-trips any text a user can type", () => {
    fc.assert(
      fc.property(fc.string(), fc.string(), (text, name) => {
        const msg = userMsg(text, { name });
        expect(parseMsg(JSON.parse(JSON.stringify(msg)))).toEqual(msg);
      }),
    );
  });
});
