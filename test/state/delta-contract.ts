import { afterAll, describe, expect, it } from "vitest";
import {
  type AgentState,
  type AgentStateStore,
  newId,
  StateConflictError,
  userMsg,
  ValidationError,
} from "../../src/index.js";
import type { CompactionPolicy } from "../../src/state/state-delta.js";
import { canonical, freshSession, playReply, randomChanges, seeded } from "./random-session.js";

/** How the delta suite reaches one backend. */
export interface DeltaHarness {
  /** A store over the suite's namespace (every store opened shares it), with this compaction. */
  open(compaction?: CompactionPolicy): Promise<AgentStateStore>;
  /** What the store holds for the save of `version`, read back from the server: its kind and bytes. */
  written(sessionId: string, version: number): Promise<{ kind: "patch" | "snapshot"; bytes: number }>;
  /** Writes `state` as version 1 of a session the way the version before patches did. */
  writeOld(sessionId: string, state: AgentState): Promise<void>;
  /** Replaces the stored patch of `version` with `patch`, behind the store's back. */
  damagePatch(sessionId: string, version: number, patch: string): Promise<void>;
  /** Drops the namespace. */
  cleanup(): Promise<void>;
  /** Replies of the long session (default 500; fewer where each commit waits for the disk). */
  longReplies?: number;
}

/**
 * Saves that write what changed, on a real store: load equals the last saved state whatever the
 * sequence of changes, saves, reloads (by another store on the same data), conflicts and compactions;
 * a long session's saves write a constant number of bytes, as the server holds them.
 */
export function describeDeltaSaves(name: string, harness: DeltaHarness): void {
  describe(`${name} (saves write what changed)`, () => {
    const opened: AgentStateStore[] = [];
    const open = async (compaction?: CompactionPolicy) => {
      const store = await harness.open(compaction);
      opened.push(store);
      return store;
    };
    afterAll(async () => {
      for (const store of opened) await store.close();
      await harness.cleanup();
    });

    for (const [label, compaction] of [
      ["default compaction", undefined],
      ["compaction every few saves", { maxPatches: 3, minCompactChars: 1 }],
    ] as const) {
      it(`loads exactly the last saved state over random saves, reloads and conflicts (${label})`, async () => {
        const stores = [await open(compaction), await open(compaction)];
        for (let seed = 1; seed <= 6; seed++) {
          const random = seeded(seed * 7919);
          const sessionId = `rand-${seed}-${newId("s")}`;
          let writer = 0;
          let state: AgentState = freshSession(sessionId);
          let version = (await stores[writer]!.save(sessionId, state, { expectedVersion: 0 })).version;
          for (let step = 0; step < 40; step++) {
            const changes = randomChanges(state, random);
            if (random() < 0.08) {
              // a stale save: refused, and the stored state stays what it was
              const stale = stores[writer]!.save(sessionId, state, { expectedVersion: version - 1 });
              await expect(stale).rejects.toThrow(StateConflictError);
            }
            version = (await stores[writer]!.save(sessionId, state, { expectedVersion: version })).version;
            const other = stores[1 - writer]!;
            const loaded = await other.load(sessionId);
            expect(loaded?.version).toBe(version);
            expect(canonical(loaded?.state), `seed ${seed}, step ${step}, after ${changes.join(", ")}`).toBe(
              canonical(state),
            );
            if (random() < 0.2) {
              // the other store (another process) goes on from what it loaded
              writer = 1 - writer;
              state = loaded!.state;
            }
          }
        }
      }, 60_000);
    }

    it("a save of the other process in between makes a patch on the old state conflict, never land", async () => {
      const [a, b] = [await open(), await open()];
      const sessionId = `between-${newId("s")}`;
      const state = freshSession(sessionId);
      await a.save(sessionId, state, { expectedVersion: 0 });
      const theirs = (await b.load(sessionId))!.state;
      theirs.context.push(userMsg("theirs"));
      await b.save(sessionId, theirs, { expectedVersion: 1 });
      state.context.push(userMsg("mine"));
      await expect(a.save(sessionId, state, { expectedVersion: 1 })).rejects.toMatchObject({
        expectedVersion: 1,
        actualVersion: 2,
      });
      // deleted and saved again up to the same version: a patch on the old state would be wrong, the
      // save (at the expected version) is due all the same and writes the whole state
      await b.delete(sessionId);
      await b.save(sessionId, freshSession(sessionId), { expectedVersion: 0 });
      await b.save(sessionId, theirs, { expectedVersion: 1 });
      const mine = (await a.load(sessionId))!.state;
      await b.delete(sessionId);
      const other = freshSession(sessionId);
      other.context.push(userMsg("another life"));
      await b.save(sessionId, other, { expectedVersion: 0 });
      await b.save(sessionId, other, { expectedVersion: 1 });
      mine.context.push(userMsg("after the recreate"));
      expect(await a.save(sessionId, mine, { expectedVersion: 2 })).toEqual({ version: 3 });
      expect(canonical((await b.load(sessionId))!.state)).toBe(canonical(mine));
    });

    const long = harness.longReplies ?? 500;
    it(`a ${long}-reply session saves in constant bytes per save, as the server holds them`, async () => {
      const store = await open();
      const sessionId = `long-${newId("s")}`;
      const state = freshSession(sessionId);
      let version = 0;
      const saves: Array<{ reply: number; kind: "patch" | "snapshot"; bytes: number }> = [];
      for (let reply = 1; reply <= long; reply++) {
        await playReply(state, reply, async (s) => {
          version = (await store.save(sessionId, s, { expectedVersion: version })).version;
          saves.push({ reply, ...(await harness.written(sessionId, version)) });
        });
      }
      const stateBytes = Buffer.byteLength(JSON.stringify(state));
      expect(stateBytes, "the session grew long").toBeGreaterThan(long * 500);
      const patches = (from: number, to: number) =>
        saves.filter((s) => s.kind === "patch" && s.reply >= from && s.reply < to).map((s) => s.bytes);
      const early = Math.max(...patches(10, 60));
      const late = Math.max(...patches(long - 50, long + 1));
      // a save writes the reply in flight, never the session: as many bytes at reply 500 as at reply 10
      expect(late).toBeLessThanOrEqual(early * 1.1 + 64);
      expect(late).toBeLessThan(2_000);
      // snapshots come once the patches since the last outweigh it: with them, still a constant per save
      const total = saves.reduce((sum, s) => sum + s.bytes, 0);
      const patchTotal = saves.filter((s) => s.kind === "patch").reduce((sum, s) => sum + s.bytes, 0);
      expect(total - patchTotal).toBeLessThanOrEqual(patchTotal + stateBytes);
      expect(total / saves.length).toBeLessThan(2_500);
      expect(saves.filter((s) => s.kind === "snapshot").length).toBeGreaterThan(1);
      expect(canonical((await (await open()).load(sessionId))!.state)).toBe(canonical(state));
    }, 120_000);

    it("loads a state the version before patches stored, and saves on from it", async () => {
      const store = await open();
      const sessionId = `old-${newId("s")}`;
      const state = freshSession(sessionId);
      await harness.writeOld(sessionId, state);
      const loaded = (await store.load(sessionId))!;
      expect(loaded.version).toBe(1);
      expect(canonical(loaded.state)).toBe(canonical(state));
      loaded.state.context.push(userMsg("first save of this version"));
      expect(await store.save(sessionId, loaded.state, { expectedVersion: 1 })).toEqual({ version: 2 });
      expect((await harness.written(sessionId, 2)).kind).toBe("snapshot");
      loaded.state.context.push(userMsg("then a patch"));
      expect(await store.save(sessionId, loaded.state, { expectedVersion: 2 })).toEqual({ version: 3 });
      expect((await harness.written(sessionId, 3)).kind).toBe("patch");
      expect(canonical((await (await open()).load(sessionId))!.state)).toBe(canonical(loaded.state));
    });

    it("reports a damaged patch naming the session and the patch", async () => {
      const store = await open();
      const sessionId = `damaged-${newId("s")}`;
      const state = freshSession(sessionId);
      await store.save(sessionId, state, { expectedVersion: 0 });
      state.context.push(userMsg("patched"));
      await store.save(sessionId, state, { expectedVersion: 1 });
      expect((await harness.written(sessionId, 2)).kind).toBe("patch");
      await store.load(sessionId); // validated once: what changes behind the store's back is checked again
      await harness.damagePatch(sessionId, 2, '{"from":99,"messages":[]}');
      const load = store.load(sessionId);
      await expect(load).rejects.toThrow(ValidationError);
      await expect(load).rejects.toThrow(`session "${sessionId}"`);
      await expect(load).rejects.toMatchObject({ path: "patch 2.from" });
      await harness.damagePatch(sessionId, 2, "{not json");
      await expect(store.load(sessionId)).rejects.toMatchObject({ path: "patch 2" });
      await harness.damagePatch(sessionId, 2, JSON.stringify({ from: 2, messages: [{ role: "robot" }] }));
      await expect(store.load(sessionId)).rejects.toThrow(/context\[2\]\.id|patch 2\.messages\[0\]\.id/);
    });
  });
}
