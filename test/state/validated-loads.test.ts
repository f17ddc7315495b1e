import { afterEach, describe, expect, it, vi } from "vitest";
import { userMsg, ValidationError } from "../../src/index.js";
import { AgentStateSchema } from "../../src/state/agent-state.js";
import type { StoredPatch } from "../../src/state/stored-patches.js";
import { ValidatedLoads } from "../../src/state/validated-loads.js";
import { canonical, freshSession } from "./random-session.js";

const snapshot = JSON.stringify(freshSession("v"));
const patch = (version: number, text: string): StoredPatch => ({
  version,
  patch: JSON.stringify({ from: version, messages: [userMsg(text)], set: { summary: text } }),
});
const patches = [patch(2, "two"), patch(3, "three")];

describe("ValidatedLoads", () => {
  // only this file's spies: the console guard restores its own after
  const spies: Array<{ mockRestore(): void }> = [];
  const spyOnWholeCheck = () => {
    const spy = vi.spyOn(AgentStateSchema, "safeParse");
    spies.push(spy);
    return spy;
  };
  afterEach(() => {
    for (const spy of spies.splice(0)) spy.mockRestore();
  });

  it("checks a whole state once, then only the patches after what it checked", () => {
    const loads = new ValidatedLoads();
    const whole = spyOnWholeCheck();
    const first = loads.decode("v", snapshot, 1, patches);
    expect(whole).toHaveBeenCalledTimes(1);
    const again = loads.decode("v", snapshot, 1, [...patches, patch(4, "four")]);
    expect(whole, "the snapshot and patches 2 and 3 were checked before").toHaveBeenCalledTimes(1);
    expect(again.context.map((m) => m.content[0]!.type === "text" && m.content[0]!.text)).toEqual([
      "hello",
      "hi",
      "two",
      "three",
      "four",
    ]);
    expect(again.summary).toBe("four");
    expect(canonical(first.context)).toBe(canonical(again.context.slice(0, 4)));
  });

  it("checks the whole state again when the snapshot or a checked patch changed behind its back", () => {
    const loads = new ValidatedLoads();
    loads.decode("v", snapshot, 1, patches);
    const edited = snapshot.replace('"role":"user"', '"role":"robot"');
    expect(() => loads.decode("v", edited, 1, patches)).toThrow(ValidationError);
    expect(() => loads.decode("v", edited, 1, patches)).toThrow(/context\[0\]\.role/);
    loads.decode("v", snapshot, 1, patches);
    const bad = { version: 3, patch: String(patches[1]!.patch).replace('"role":"user"', '"role":"robot"') };
    expect(() => loads.decode("v", snapshot, 1, [patches[0]!, bad])).toThrow(/context\[3\]\.role/);
  });

  it("names a bad message or field of a new patch by the patch", () => {
    const loads = new ValidatedLoads();
    loads.decode("v", snapshot, 1, patches);
    const robot = {
      version: 4,
      patch: JSON.stringify({ from: 4, messages: [{ ...userMsg("x"), role: "robot" }] }),
    };
    expect(() => loads.decode("v", snapshot, 1, [...patches, robot])).toThrow(/patch 4\.messages\[0\]\.role/);
    const field = {
      version: 4,
      patch: JSON.stringify({ from: 4, messages: [], set: { tasks: "not a list" } }),
    };
    expect(() => loads.decode("v", snapshot, 1, [...patches, field])).toThrow(/patch 4\.set\.tasks/);
    const other = { version: 4, patch: JSON.stringify({ from: 4, messages: [], set: { sessionId: "w" } }) };
    expect(() => loads.decode("v", snapshot, 1, [...patches, other])).toThrow(
      /holds the state of session "w"/,
    );
  });

  it("keeps sessions apart", () => {
    const loads = new ValidatedLoads();
    loads.decode("v", snapshot, 1, patches);
    const whole = spyOnWholeCheck();
    const w = JSON.stringify(freshSession("w"));
    loads.decode("w", w, 1, []);
    expect(whole).toHaveBeenCalledTimes(1);
    expect(() => loads.decode("w", snapshot, 1, [])).toThrow(/holds the state of session "v"/);
  });
});
