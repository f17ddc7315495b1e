import { describe, expect, it } from "vitest";
import {
  type AgentState,
  StateConflictError,
  StateEncodingError,
  userMsg,
  ValidationError,
} from "../../src/index.js";
import { type PlannedSave, SaveTracker } from "../../src/state/state-delta.js";
import { decodeStoredState, type StoredPatch } from "../../src/state/stored-patches.js";
import { canonical, freshSession, playReply, randomChanges, seeded } from "./random-session.js";

/** A store's rows, kept the way the SQL stores keep them: a snapshot and the patches after it. */
class Chain {
  snapshot = "";
  snapshotVersion = 0;
  head = "";
  patches: Array<StoredPatch & { head: string }> = [];

  get version(): number {
    return this.patches.at(-1)?.version ?? this.snapshotVersion;
  }

  write(save: PlannedSave): void {
    if (save.kind === "snapshot") {
      this.snapshot = save.json;
      this.snapshotVersion = this.version + 1;
      this.patches = [];
    } else {
      expect(save.base, "a patch applies to the last save").toBe(this.head);
      this.patches.push({ version: this.version + 1, patch: save.json, head: save.head });
    }
    this.head = save.head;
  }

  load(sessionId: string): AgentState {
    return decodeStoredState(sessionId, this.snapshot, this.snapshotVersion, this.patches);
  }
}

describe("SaveTracker and decodeStoredState", () => {
  for (const [label, policy] of [
    ["default compaction", {}],
    ["compaction every few saves", { maxPatches: 4, minCompactChars: 1 }],
  ] as const) {
    it(`load equals the last saved state over random sequences of changes and saves (${label})`, () => {
      for (let seed = 1; seed <= 40; seed++) {
        const random = seeded(seed);
        const tracker = new SaveTracker(policy);
        const sessionId = `s${seed}`;
        const chain = new Chain();
        let state = freshSession(sessionId);
        const kinds = { snapshot: 0, patch: 0 };
        for (let step = 0; step < 60; step++) {
          const changes = randomChanges(state, random);
          const save = tracker.plan(sessionId, state, { expectedVersion: chain.version });
          chain.write(save);
          kinds[save.kind]++;
          const loaded = chain.load(sessionId);
          expect(canonical(loaded), `seed ${seed}, step ${step}, after ${changes.join(", ")}`).toBe(
            canonical(state),
          );
          if (random() < 0.1) {
            // a reload, or a caller that saves fresh copies: the next save patches the loaded state
            state = loaded;
            tracker.loaded(sessionId, state, {
              version: chain.version,
              head: chain.head,
              snapshotChars: chain.snapshot.length,
              patchChars: chain.patches.reduce((n, p) => n + String(p.patch).length, 0),
              patches: chain.patches.length,
            });
          } else if (random() < 0.05) {
            state = structuredClone(state);
          }
        }
        expect(kinds.patch, `seed ${seed} wrote patches`).toBeGreaterThan(kinds.snapshot);
      }
    });
  }

  it("writes a patch of constant size per save, however long the session", async () => {
    const tracker = new SaveTracker();
    const chain = new Chain();
    const state = freshSession("long");
    const sizes: number[] = [];
    for (let reply = 1; reply <= 500; reply++) {
      await playReply(state, reply, async (s) => {
        const save = tracker.plan("long", s, { expectedVersion: chain.version });
        chain.write(save);
        sizes.push(save.kind === "patch" ? save.json.length : -save.json.length);
      });
    }
    const patches = (from: number, to: number) => sizes.slice(from * 5, to * 5).filter((n) => n > 0);
    // a reply's saves carry that reply's messages, a few hundred characters, at reply 10 as at 500
    expect(Math.max(...patches(490, 500))).toBeLessThanOrEqual(Math.max(...patches(10, 20)) + 20);
    expect(Math.max(...patches(490, 500))).toBeLessThan(1000);
    expect(JSON.stringify(state).length).toBeGreaterThan(300_000);
    expect(canonical(chain.load("long"))).toBe(canonical(state));
  });

  it("writes a snapshot when there is nothing to patch, when compaction is due, and after compression", () => {
    const tracker = new SaveTracker({ maxPatches: 2, minCompactChars: 1_000_000 });
    const state = freshSession("kinds");
    const kind = (expectedVersion: number) => tracker.plan("kinds", state, { expectedVersion }).kind;
    expect(kind(0)).toBe("snapshot");
    state.context.push(userMsg("more"));
    expect([kind(1), kind(2), kind(3)]).toEqual(["patch", "patch", "snapshot"]);
    expect(kind(7), "a version it did not save").toBe("snapshot");
    state.context.push(userMsg("one"), userMsg("two"));
    expect(kind(8)).toBe("patch");
    state.context.splice(0, 2);
    expect(kind(9), "the context changed from its first message").toBe("snapshot");
    expect(
      tracker.plan("kinds", structuredClone(state), { expectedVersion: 10 }).kind,
      "another object",
    ).toBe("snapshot");
  });

  it("patches only the messages from the first that changed, and the fields that changed", () => {
    const tracker = new SaveTracker();
    const state = freshSession("fields");
    state.context.push(userMsg("third"), userMsg("fourth"));
    state.summary = "old";
    tracker.plan("fields", state, { expectedVersion: 0 });
    state.context[2]!.content = [{ type: "text", id: "blk_x", text: "replaced content" }];
    delete state.summary;
    state.middleware.m = 1;
    const save = tracker.plan("fields", state, { expectedVersion: 1 });
    expect(save.kind).toBe("patch");
    const patch = JSON.parse(save.json);
    // and the message before it, which may have been the last one for a while
    expect(patch.from).toBe(1);
    expect(patch.messages.map((m: { content: Array<{ text: string }> }) => m.content[0]!.text)).toEqual([
      "hi",
      "replaced content",
      "fourth",
    ]);
    expect(patch.set).toEqual({ middleware: { m: 1 } });
    expect(patch.unset).toEqual(["summary"]);
  });

  it("refuses unstorable text in a patch, naming the field, and keeps the base it had", () => {
    const tracker = new SaveTracker();
    const state = freshSession("bad");
    tracker.plan("bad", state, { expectedVersion: 0 });
    state.context.push(userMsg("broken \uD83D half"));
    expect(() => tracker.plan("bad", state, { expectedVersion: 1 })).toThrow(StateEncodingError);
    expect(() => tracker.plan("bad", state, { expectedVersion: 1 })).toThrow(
      /context\[2\]\.content\[0\]\.text/,
    );
    state.context.pop();
    state.context.push(userMsg("fine"));
    const save = tracker.plan("bad", state, { expectedVersion: 1 });
    expect(save.kind).toBe("patch");
  });

  it("saves a state whose context is not an array whole, as before (its load then names it)", () => {
    const tracker = new SaveTracker();
    const state = freshSession("odd");
    tracker.plan("odd", state, { expectedVersion: 0 });
    (state as unknown as { context: unknown }).context = null;
    expect(tracker.plan("odd", state, { expectedVersion: 1 })).toMatchObject({ kind: "snapshot" });
  });

  it("a patch refused at the expected version (another life of the session) says so", () => {
    expect(new StateConflictError("s", 5, 5).message).toMatch(
      /has version 5, but not the one this state was saved or loaded as/,
    );
    expect(new StateConflictError("s", 4, 5).message).toMatch(
      /expected version 4 but the store has version 5/,
    );
  });

  it("checks save's arguments as every store does", () => {
    const tracker = new SaveTracker();
    const state = freshSession("args");
    expect(() => tracker.plan("other", state, { expectedVersion: 0 })).toThrow(/belongs to session/);
    expect(() => tracker.plan("args", state, { expectedVersion: -1 })).toThrow(/expectedVersion/);
    expect(() => new SaveTracker({ maxPatches: 0 })).toThrow(/compaction.maxPatches/);
  });
});

describe("decodeStoredState on damaged patches", () => {
  const snapshot = JSON.stringify(freshSession("dmg"));
  const patch = (body: unknown, version = 4): StoredPatch => ({ version, patch: JSON.stringify(body) });
  const fails = (patches: StoredPatch[], path: string | RegExp, detail: RegExp) => {
    let error: unknown;
    try {
      decodeStoredState("dmg", snapshot, 3, patches);
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(ValidationError);
    expect((error as ValidationError).message).toContain('session "dmg"');
    if (typeof path === "string") expect((error as ValidationError).path).toBe(path);
    else expect((error as ValidationError).path).toMatch(path);
    expect((error as ValidationError).detail).toMatch(detail);
  };

  it("applies good patches in order", () => {
    const state = decodeStoredState("dmg", snapshot, 3, [
      patch({ from: 2, messages: [userMsg("a")], set: { summary: "s" } }),
      patch({ from: 3, messages: [userMsg("b")], unset: ["summary"] }, 5),
    ]);
    expect(state.context).toHaveLength(4);
    expect(state.summary).toBeUndefined();
  });

  it("names a missing patch", () =>
    fails([patch({ from: 2, messages: [] }, 5)], "patch 5", /the patch of version 4 is missing/));
  it("names a patch that is not JSON", () =>
    fails([{ version: 4, patch: "{not json" }], "patch 4", /is not JSON/));
  it("names a patch that is not an object", () => fails([patch([1, 2])], "patch 4", /not an object/));
  it("names a bad `from`", () => fails([patch({ from: 9, messages: [] })], "patch 4.from", /0 to 2/));
  it("names bad messages", () =>
    fails([patch({ from: 0, messages: {} })], "patch 4.messages", /not an array/));
  it("names a bad message by its place in the result", () =>
    fails([patch({ from: 2, messages: [{ role: "robot" }] })], /^context\[2\]/, /./));
  it("refuses a patch that sets the context", () =>
    fails([patch({ from: 2, messages: [], set: { context: [] } })], "patch 4.set", /names context/));
  it("names bad unset", () =>
    fails([patch({ from: 2, messages: [], unset: [1] })], "patch 4.unset", /field names/));
  it("names a snapshot that cannot be patched", () => {
    expect(() => decodeStoredState("dmg", "[]", 3, [patch({ from: 0, messages: [] })])).toThrow(
      /snapshot \(version 3\) has no context array/,
    );
  });
  it("keeps __proto__ a plain field, which the schema drops", () => {
    const state = decodeStoredState("dmg", snapshot, 3, [
      { version: 4, patch: '{"from":2,"messages":[],"set":{"__proto__":{"polluted":true}}}' },
    ]);
    expect((state as unknown as { polluted?: boolean }).polluted).toBeUndefined();
    expect(({} as { polluted?: boolean }).polluted).toBeUndefined();
  });
});
