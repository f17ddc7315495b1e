import {
  chmodSync,
  lstatSync,
  mkdirSync,
  readFileSync,
  readlinkSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { textOf, userMsg } from "../../src/message/index.js";
import {
  type AgentState,
  type CheckpointStore,
  CheckpointUnavailableError,
  emptyAgentState,
  forkFrom,
  rewindTo,
  SessionTimeline,
} from "../../src/state/index.js";
import { measureCheckpointStorage } from "../support/checkpoint-storage.js";
import { tempDir } from "../workspace/helpers.js";

const bytes = (text: string) => new Uint8Array(Buffer.from(text));

/** A subject whose state lives in a variable, saved compare-and-set like a store would. */
function subjectOf(initial: AgentState) {
  const held = { state: initial, version: 1 };
  return {
    held,
    subject: () => ({
      state: held.state,
      version: held.version,
      save: async (state: AgentState, expected: number) => {
        if (expected !== held.version) throw new Error(`conflict: ${expected} != ${held.version}`);
        held.state = state;
        held.version += 1;
        return held.version;
      },
    }),
  };
}

const withTurn = (state: AgentState, text: string): AgentState => ({
  ...state,
  context: [...state.context, userMsg(text)],
});

/**
 * What every CheckpointStore must do, on its real server: blobs stored once per session and kept
 * apart per session, records ordered and replaced, and the timeline over it (rewind, undo, fork,
 * retention, a restart) working as one unit with a real workspace directory.
 */
export function describeCheckpointStore(name: string, open: () => Promise<CheckpointStore>): void {
  describe(`${name}: checkpoint store contract`, () => {
    const stores: CheckpointStore[] = [];
    const dirs: Array<() => void> = [];
    const fresh = async () => {
      const store = await open();
      stores.push(store);
      return store;
    };
    const workspace = () => {
      const { dir, cleanup } = tempDir("agentscope-ckpt-");
      dirs.push(cleanup);
      return dir;
    };
    const session = () => `s-${Math.random().toString(36).slice(2, 10)}`;
    afterAll(async () => {
      for (const store of stores) await store.close();
      for (const cleanup of dirs) cleanup();
    });

    it("stores a blob once per session, answers what is missing, and keeps sessions apart", async () => {
      const store = await fresh();
      const [a, b] = [session(), session()];
      const blob = { hash: "a".repeat(64), bytes: bytes("hello") };
      expect(await store.putBlobs(a, [blob])).toBe(5);
      expect(await store.putBlobs(a, [blob])).toBe(0);
      expect(await store.missingBlobs(a, [blob.hash, "b".repeat(64)])).toEqual(["b".repeat(64)]);
      expect(await store.missingBlobs(b, [blob.hash])).toEqual([blob.hash]);
      expect(Buffer.from((await store.getBlobs(a, [blob.hash])).get(blob.hash)!).toString()).toBe("hello");
      expect((await store.getBlobs(b, [blob.hash])).size).toBe(0);
      expect([...(await store.blobSizes(a))]).toEqual([[blob.hash, 5]]);
      const binary = { hash: "c".repeat(64), bytes: new Uint8Array([0, 255, 10, 13, 0]) };
      await store.putBlobs(a, [binary]);
      expect([...(await store.getBlobs(a, [binary.hash])).get(binary.hash)!]).toEqual([0, 255, 10, 13, 0]);
      await store.deleteBlobs(a, [blob.hash]);
      expect(await store.missingBlobs(a, [blob.hash, binary.hash])).toEqual([blob.hash]);
    });

    it("keeps records ordered by key, replaces one put again, deletes by key and with the session", async () => {
      const store = await fresh();
      const id = session();
      await store.putRecord(id, "c:000000000002", "two");
      await store.putRecord(id, "c:000000000001", "one");
      await store.putRecord(id, "head", "h1");
      await store.putRecord(id, "head", "h2");
      expect(await store.records(id)).toEqual([
        { key: "c:000000000001", json: "one" },
        { key: "c:000000000002", json: "two" },
        { key: "head", json: "h2" },
      ]);
      await store.deleteRecords(id, ["c:000000000001"]);
      expect((await store.records(id)).map((r) => r.key)).toEqual(["c:000000000002", "head"]);
      await store.putBlobs(id, [{ hash: "d".repeat(64), bytes: bytes("x") }]);
      await store.deleteSession(id);
      expect(await store.records(id)).toEqual([]);
      expect((await store.blobSizes(id)).size).toBe(0);
    });

    it("a rewind restores conversation, files, modes and symlinks, and is undone by rewinding to its undo point", async () => {
      const store = await fresh();
      const root = workspace();
      const id = session();
      const timeline = new SessionTimeline({ store, sessionId: id, workspace: root });
      writeFileSync(join(root, "notes.txt"), "first");
      mkdirSync(join(root, "src"));
      writeFileSync(join(root, "src", "run.sh"), "#!/bin/sh\necho hi\n");
      chmodSync(join(root, "src", "run.sh"), 0o755);
      symlinkSync("../notes.txt", join(root, "src", "link"));
      const { held, subject } = subjectOf(withTurn(emptyAgentState(id), "one"));
      const before = await timeline.record(held.state, { kind: "reply_end", stateVersion: 1 });

      held.state = withTurn(held.state, "two");
      writeFileSync(join(root, "notes.txt"), "second");
      writeFileSync(join(root, "new.txt"), "added later");
      chmodSync(join(root, "src", "run.sh"), 0o644);
      await timeline.record(held.state, { kind: "reply_end", stateVersion: 1 });

      const rewound = await rewindTo(timeline, before, subject());
      expect(held.state.context.map((m) => textOf(m))).toEqual(["one"]);
      expect(readFileSync(join(root, "notes.txt"), "utf8")).toBe("first");
      expect(() => lstatSync(join(root, "new.txt"))).toThrow();
      expect(lstatSync(join(root, "src", "run.sh")).mode & 0o777).toBe(0o755);
      expect(readlinkSync(join(root, "src", "link"))).toBe("../notes.txt");

      await rewindTo(timeline, rewound.undo, subject());
      expect(held.state.context).toHaveLength(2);
      expect(readFileSync(join(root, "notes.txt"), "utf8")).toBe("second");
      expect(readFileSync(join(root, "new.txt"), "utf8")).toBe("added later");
      // both lines are kept: three branches (the first, the one after the rewind, the one after the undo)
      expect(Object.keys((await timeline.head()).branches)).toHaveLength(3);
    });

    it("a restore writes through no symlink: a directory replaced by a link out of the workspace is put back as a directory", async () => {
      const store = await fresh();
      const root = workspace();
      const outside = workspace();
      const id = session();
      const timeline = new SessionTimeline({ store, sessionId: id, workspace: root });
      mkdirSync(join(root, "dir"));
      writeFileSync(join(root, "dir", "f.txt"), "inside");
      const { held, subject } = subjectOf(emptyAgentState(id));
      const cp = await timeline.record(held.state, { kind: "reply_end", stateVersion: 1 });
      const { rmSync } = await import("node:fs");
      rmSync(join(root, "dir"), { recursive: true });
      symlinkSync(outside, join(root, "dir"));
      await rewindTo(timeline, cp, subject());
      expect(lstatSync(join(root, "dir")).isDirectory()).toBe(true);
      expect(readFileSync(join(root, "dir", "f.txt"), "utf8")).toBe("inside");
      expect(() => lstatSync(join(outside, "f.txt"))).toThrow();
    });

    it("a fork copies the conversation, the files and the grants, and is independent of its origin afterwards", async () => {
      const store = await fresh();
      const [originRoot, forkRoot] = [workspace(), workspace()];
      const [originId, forkId] = [session(), session()];
      const origin = new SessionTimeline({ store, sessionId: originId, workspace: originRoot });
      writeFileSync(join(originRoot, "a.txt"), "as it was");
      const state = withTurn(emptyAgentState(originId, { workingDirectories: [originRoot] }), "hello");
      state.permission.rules.push({
        toolName: "Bash",
        ruleContent: "ls:*",
        behavior: "allow",
        source: "confirmation",
      });
      const cp = await origin.record(state, { kind: "reply_end", stateVersion: 1 });
      expect(cp.grants).toEqual([
        { toolName: "Bash", ruleContent: "ls:*", behavior: "allow", source: "confirmation" },
      ]);

      let forkState: AgentState | undefined;
      const target = new SessionTimeline({ store, sessionId: forkId, workspace: forkRoot });
      const fork = await forkFrom(origin, cp, {
        timeline: target,
        save: async (s) => {
          forkState = s;
          return 1;
        },
      });
      expect(forkState?.sessionId).toBe(forkId);
      expect(fork.state.permission.rules).toEqual(state.permission.rules);
      expect(fork.state.permission.workingDirectories).toEqual([forkRoot]);
      expect(readFileSync(join(forkRoot, "a.txt"), "utf8")).toBe("as it was");
      expect((await target.head()).origin).toEqual({ sessionId: originId, checkpoint: cp.id });

      writeFileSync(join(forkRoot, "a.txt"), "changed in the fork");
      writeFileSync(join(originRoot, "b.txt"), "only in the origin");
      expect(readFileSync(join(originRoot, "a.txt"), "utf8")).toBe("as it was");
      expect(() => lstatSync(join(forkRoot, "b.txt"))).toThrow();
      // the fork's blobs are its own: clearing the origin leaves the fork restorable
      await origin.clear();
      writeFileSync(join(forkRoot, "a.txt"), "changed again");
      const { subject } = subjectOf(fork.state);
      await rewindTo(target, fork.checkpoint, subject());
      expect(readFileSync(join(forkRoot, "a.txt"), "utf8")).toBe("as it was");
    });

    it("retention drops old checkpoints by count and age, and a pruned snapshot refuses to half-restore", async () => {
      const store = await fresh();
      const root = workspace();
      const id = session();
      let now = Date.parse("2026-01-01T00:00:00Z");
      const options = { store, sessionId: id, workspace: root, now: () => now };
      const timeline = new SessionTimeline({ ...options, retention: { maxCheckpoints: 3 } });
      const { held, subject } = subjectOf(emptyAgentState(id));
      for (let i = 0; i < 5; i++) {
        writeFileSync(join(root, "f.txt"), `version ${i}`.repeat(100));
        held.state = withTurn(held.state, `turn ${i}`);
        await timeline.record(held.state, { kind: "reply_end", stateVersion: 1 });
      }
      expect((await timeline.list()).map((c) => c.id)).toEqual(["cp-3", "cp-4", "cp-5"]);
      now += 2 * 24 * 60 * 60 * 1000;
      const aged = new SessionTimeline({ ...options, retention: { maxAgeMs: 24 * 60 * 60 * 1000 } });
      await aged.prune();
      expect((await aged.list()).map((c) => c.id)).toEqual(["cp-5"]);

      // bytes: only the newest snapshots fit; the older ones say "pruned" and cannot be restored
      const tight = new SessionTimeline({ ...options, retention: { maxBytes: 3000 } });
      for (let i = 0; i < 3; i++) {
        writeFileSync(join(root, "f.txt"), `${i}`.repeat(2000));
        await tight.record(held.state, { kind: "reply_end", stateVersion: 1 });
      }
      const kept = await tight.list();
      expect(kept.at(-1)?.workspace?.status).toBe("kept");
      const pruned = kept.find((c) => c.workspace?.status === "pruned");
      expect(pruned).toBeDefined();
      writeFileSync(join(root, "f.txt"), "now");
      const before = held.state;
      await expect(rewindTo(tight, pruned!, subject())).rejects.toBeInstanceOf(CheckpointUnavailableError);
      expect(readFileSync(join(root, "f.txt"), "utf8")).toBe("now");
      expect(held.state).toBe(before);
      expect(await tight.storedBytes()).toBeLessThan(3000 + 5000);
    });

    it("after a restart (a new store and timeline) the checkpoints and branches are intact", async () => {
      const id = session();
      const root = workspace();
      const first = await fresh();
      const timeline = new SessionTimeline({ store: first, sessionId: id, workspace: root });
      const { held, subject } = subjectOf(withTurn(emptyAgentState(id), "one"));
      writeFileSync(join(root, "f.txt"), "one");
      const cp1 = await timeline.record(held.state, { kind: "reply_end", stateVersion: 1 });
      held.state = withTurn(held.state, "two");
      writeFileSync(join(root, "f.txt"), "two");
      await timeline.record(held.state, { kind: "reply_end", stateVersion: 2 });
      const rewound = await rewindTo(timeline, cp1, subject());
      await first.close();

      const again = new SessionTimeline({ store: await fresh(), sessionId: id, workspace: root });
      const listed = await again.list();
      expect(listed.map((c) => c.id)).toEqual(["cp-1", "cp-2", "cp-3"]);
      const head = await again.head();
      expect(head.branch).toBe(rewound.branch);
      expect(head.at).toBe("cp-1");
      expect(head.branches[rewound.branch]?.from).toBe("cp-1");
      const restored = await again.state(listed[2]!);
      expect(restored.context).toHaveLength(2);
      await rewindTo(again, listed[2]!, subject());
      expect(readFileSync(join(root, "f.txt"), "utf8")).toBe("two");
      // the next checkpoint continues the numbering
      expect((await again.record(held.state, { kind: "manual", stateVersion: 9 })).id).toBe("cp-5");
    });

    it("100 checkpoints where one file changes per reply cost about one copy of the workspace plus the changes", async () => {
      const figures = await measureCheckpointStorage(await fresh(), session(), workspace());
      expect(figures.checkpoints).toBe(100);
      // per checkpoint: the changed file's tree and the root tree (hashes as hex JSON) and a chain piece: under 2 KB
      const overhead =
        figures.storedBytes - figures.workspaceBytes - figures.changedBytes - figures.messageBytes;
      expect(overhead).toBeGreaterThan(0);
      expect(overhead).toBeLessThan(100 * 2000);
      // a copy of the workspace per checkpoint would be 100 × 80 KB
      expect(figures.storedBytes).toBeLessThan(figures.workspaceBytes * 10);
    }, 60_000); // 100 checkpoints of a few commits each: a database that syncs each commit takes seconds
  });
}
