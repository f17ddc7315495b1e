import { describe, expect, it } from "vitest";
import { emptyAgentState, InMemoryStateStore, StateEncodingError, ValidationError } from "../../src/index.js";
import { decodeState, MAX_SESSION_ID_LENGTH, replaceUnstorableChars } from "../../src/state/index.js";
import { stateWith } from "./store-contract.js";

describe("what every store checks before saving", () => {
  const store = new InMemoryStateStore();

  it.each([
    ["a negative version", -1],
    ["a fractional version", 1.5],
    ["no version", undefined],
  ])("rejects %s as expectedVersion", async (_label, expectedVersion) => {
    await expect(
      store.save("s", emptyAgentState("s"), { expectedVersion: expectedVersion as number }),
    ).rejects.toThrow(/expectedVersion must be an integer >= 0/);
  });

  it("rejects the state of another session", async () => {
    await expect(store.save("a", emptyAgentState("b"), { expectedVersion: 0 })).rejects.toThrow(
      /the state belongs to session "b"/,
    );
  });

  it.each([
    ["empty", ""],
    ["too long", "x".repeat(MAX_SESSION_ID_LENGTH + 1)],
    ["a lone surrogate", "a\uD800"],
  ])("rejects a session id that is %s", async (_label, sessionId) => {
    await expect(store.load(sessionId)).rejects.toThrow(TypeError);
  });

  it("names the session, the field and the fix for text no store can keep", async () => {
    const state = stateWith("s", ["ok"]);
    state.middleware = { notes: { last: "x\uDC00" } };
    const error = await store.save("s", state, { expectedVersion: 0 }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(StateEncodingError);
    expect((error as Error).message).toBe(
      'cannot save session "s": middleware.notes.last contains a lone surrogate U+DC00 at index 1, which stores cannot keep; clean the text first (replaceUnstorableChars swaps such characters for U+FFFD)',
    );
  });

  it("accepts text that merely spells an escape, like a backslash followed by u0000", async () => {
    const state = stateWith("spelled", ["\\u0000 and \\ud800 are escapes"]);
    await store.save("spelled", state, { expectedVersion: 0 });
    expect((await store.load("spelled"))?.state).toEqual(state);
  });

  it("replaceUnstorableChars swaps lone surrogates and U+0000 and keeps surrogate pairs", () => {
    expect(replaceUnstorableChars("a\uD83Db\u0000c😀\uDE00")).toBe("a\uFFFDb\uFFFDc😀\uFFFD");
  });

  it("hands out copies: changing a loaded or saved state does not change the store", async () => {
    const state = stateWith("copy", ["one"]);
    await store.save("copy", state, { expectedVersion: 0 });
    state.summary = "changed after save";
    const loaded = await store.load("copy");
    loaded!.state.context.length = 0;
    const again = await store.load("copy");
    expect(again?.state.summary).toBeUndefined();
    expect(again?.state.context).toHaveLength(1);
  });

  it("refuses a stored state that belongs to another session", () => {
    expect(() => decodeState("a", JSON.stringify(emptyAgentState("b")))).toThrow(ValidationError);
    expect(() => decodeState("a", JSON.stringify(emptyAgentState("b")))).toThrow(
      /stored AgentState of session "a": sessionId: holds the state of session "b"/,
    );
  });

  it("rejects a bad page size or a cursor it did not hand out", async () => {
    await expect(store.list({ limit: 0 })).rejects.toThrow(/limit must be an integer from 1 to 1000/);
    await expect(store.list({ cursor: "not a cursor!" })).rejects.toThrow(
      /cursor is not one this store returned/,
    );
  });
});
