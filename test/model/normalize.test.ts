import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { assistantMsg, type ContentBlock, type Msg, systemMsg, userMsg } from "../../src/message/index.js";
import { MISSING_TOOL_RESULT, normalizeMessages } from "../../src/model/normalize.js";

const call = (id: string, name = "search"): ContentBlock => ({
  type: "tool_call",
  id,
  name,
  input: "{}",
  state: "finished",
});
const result = (id: string, output = "ok", name = "search"): ContentBlock => ({
  type: "tool_result",
  id,
  name,
  output,
  state: "success",
});
const text = (value: string, id = `t_${value}`): ContentBlock => ({ type: "text", id, text: value });
const hint = (value: string): ContentBlock => ({ type: "hint", id: `h_${value}`, text: value });
const thinking = (value: string, provider?: string): ContentBlock => ({
  type: "thinking",
  id: `k_${value}`,
  thinking: value,
  ...(provider ? { provider } : {}),
});

const normalize = (messages: Msg[], foreignThinking?: "text" | "drop") =>
  normalizeMessages(messages, { provider: "openai", foreignThinking });

describe("normalizeMessages", () => {
  it("tool-call-without-result: gets a synthetic error result right after its run", () => {
    const reply = assistantMsg([call("a"), call("b"), result("a"), text("after")]);
    const [msg] = normalize([userMsg("hi"), reply]).slice(1);
    expect(msg?.content.map((b) => `${b.type}:${b.id}`)).toEqual([
      "tool_call:a",
      "tool_call:b",
      "tool_result:a",
      "tool_result:b",
      "text:t_after",
    ]);
    expect(msg?.content[3]).toEqual({
      type: "tool_result",
      id: "b",
      name: "search",
      output: MISSING_TOOL_RESULT,
      state: "error",
    });
  });

  it("tool-call-with-result-in-a-later-message: is left alone", () => {
    const history = [assistantMsg([call("a")]), assistantMsg([result("a")])];
    expect(normalize(history)).toEqual(history);
  });

  it("tool-result-without-call: goes", () => {
    const [msg] = normalize([assistantMsg([result("ghost"), text("hello")])]);
    expect(msg?.content).toEqual([text("hello")]);
  });

  it("empty-text: blocks go, and a message left empty goes", () => {
    const out = normalize([userMsg([text(""), text("  \n"), text("q")]), assistantMsg([text(" ")])]);
    expect(out).toHaveLength(1);
    expect(out[0]?.content).toEqual([text("q")]);
  });

  it("unchanged-history: returns the same message objects", () => {
    const history = [
      systemMsg("sys"),
      userMsg("hi"),
      assistantMsg([thinking("hm", "openai"), call("a"), result("a")]),
    ];
    const out = normalize(history);
    out.forEach((msg, i) => {
      expect(msg).toBe(history[i]);
    });
  });

  it("foreign-thinking: becomes tagged text by default and is dropped on request", () => {
    const history = [assistantMsg([thinking("plan", "anthropic"), text("answer")])];
    expect(normalize(history)[0]?.content).toEqual([
      text("<thinking>plan</thinking>", "k_plan"),
      text("answer"),
    ]);
    expect(normalize(history, "drop")[0]?.content).toEqual([text("answer")]);
  });

  it("own-thinking: is kept for the provider that produced it", () => {
    const block = thinking("plan", "openai");
    expect(normalize([assistantMsg([block])])[0]?.content).toEqual([block]);
  });

  it("redacted-foreign-thinking: goes even when converting to text", () => {
    const redacted: ContentBlock = {
      type: "thinking",
      id: "r",
      thinking: "",
      redactedData: "xx",
      provider: "anthropic",
    };
    expect(normalize([assistantMsg([redacted, text("a")])])[0]?.content).toEqual([text("a")]);
  });

  it("hint: becomes a user message at its place, after the tool run it sits in", () => {
    const reply = assistantMsg(
      [text("let me look"), call("a"), hint("be brief"), result("a"), text("done")],
      {
        id: "r1",
      },
    );
    const out = normalize([userMsg("q"), reply]);
    expect(out.map((m) => [m.role, m.content.map((b) => b.id)])).toEqual([
      ["user", [out[0]?.content[0]?.id]],
      ["assistant", ["t_let me look", "a", "a"]],
      ["user", ["h_be brief"]],
      ["assistant", ["t_done"]],
    ]);
    expect(out[2]?.content).toEqual([text("be brief", "h_be brief")]);
    expect(out[2]?.metadata).toEqual({ hint: true });
    expect(out[3]?.id).toBe("r1");
  });

  it("hint-at-end: becomes a trailing user message", () => {
    const out = normalize([assistantMsg([call("a"), result("a"), hint("now answer")])]);
    expect(out.map((m) => m.role)).toEqual(["assistant", "user"]);
  });

  it("does not mutate its input", () => {
    const reply = assistantMsg([call("a"), hint("x"), text("")]);
    const before = structuredClone(reply);
    normalize([reply]);
    expect(reply).toEqual(before);
  });
});

describe("normalizeMessages (property)", () => {
  it("leaves every tool call with exactly one result and no orphan result", () => {
    const block = fc.oneof(
      fc.constantFrom("a", "b", "c").map((id) => call(id)),
      fc.constantFrom("a", "b", "d").map((id) => result(id)),
      fc.constantFrom("", "x").map((v) => text(v)),
      fc.constant(hint("h")),
      fc.constant(thinking("t", "gemini")),
    );
    fc.assert(
      fc.property(fc.array(fc.uniqueArray(block, { selector: (b) => `${b.type}${b.id}` })), (contents) => {
        const out = normalize(contents.map((content) => assistantMsg(content)));
        const calls = out.flatMap((m) => m.content.filter((b) => b.type === "tool_call").map((b) => b.id));
        const results = out.flatMap((m) =>
          m.content.filter((b) => b.type === "tool_result").map((b) => b.id),
        );
        for (const id of new Set(calls)) expect(results).toContain(id);
        for (const id of results) expect(calls).toContain(id);
        for (const msg of out) expect(msg.content.length).toBeGreaterThan(0);
        expect(out.some((m) => m.content.some((b) => b.type === "hint"))).toBe(false);
      }),
    );
  });
});

describe("normalizeMessages (encrypted reasoning)", () => {
  it("encrypted-only-thinking: is kept for its own provider", () => {
    const block: ContentBlock = {
      type: "thinking",
      id: "rs_1",
      thinking: "",
      signature: "enc",
      itemId: "rs_1",
      provider: "openai",
    };
    expect(normalize([assistantMsg([block, text("a")])])[0]?.content).toEqual([block, text("a")]);
  });
});
