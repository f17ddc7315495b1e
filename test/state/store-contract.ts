import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  type AgentState,
  type AgentStateStore,
  assistantMsg,
  type CreateStateStoreOptions,
  emptyAgentState,
  newId,
  StateConflictError,
  StateEncodingError,
  userMsg,
  ValidationError,
} from "../../src/index.js";

const worker = fileURLToPath(new URL("./race-worker.ts", import.meta.url));

/** Starts the race worker; `ready` resolves once it is connected, `done` with its conflict count. */
function startWorker(args: string[]) {
  const child = spawn(process.execPath, ["--import", "tsx", worker, ...args], { stdio: "pipe" });
  let out = "";
  let err = "";
  child.stderr.on("data", (chunk) => {
    err += chunk;
  });
  const ready = new Promise<void>((resolve) => {
    child.stdout.on("data", (chunk) => {
      out += chunk;
      if (out.startsWith("ready\n")) resolve();
    });
  });
  const done = new Promise<number>((resolve, reject) => {
    child.on("close", (code) =>
      code === 0
        ? resolve(Number(out.slice("ready\n".length)))
        : reject(new Error(`race worker exited with ${code}: ${err}`)),
    );
  });
  return { go: () => child.stdin.end("go\n"), ready: Promise.race([ready, done.then(() => {})]), done };
}

/** How the contract suite reaches one backend. */
export interface StoreHarness {
  /** A store over a namespace (table, key prefix, directory) of its own. */
  open(): Promise<AgentStateStore>;
  /** Writes `stateJson` as the stored state of a session, behind the store's back. */
  writeRaw?(sessionId: string, stateJson: string): Promise<void>;
  /** For the two-process race: what `createStateStore` needs to reach the same namespace. */
  shared?: { url: string; options?: CreateStateStoreOptions };
  /** Drops the namespace. */
  cleanup(): Promise<void>;
}

export function stateWith(sessionId: string, texts: string[]): AgentState {
  const state = emptyAgentState(sessionId);
  state.context = texts.map((text, i) => (i % 2 === 0 ? userMsg(text) : assistantMsg(text)));
  return state;
}

/** JSON with keys sorted: a fast deep-equality check for large states (JSONB reorders keys). */
function canonical(value: unknown): string {
  return JSON.stringify(value, (_key, v) =>
    v && typeof v === "object" && !Array.isArray(v)
      ? Object.fromEntries(Object.entries(v).sort(([a], [b]) => (a < b ? -1 : 1)))
      : v,
  );
}

/** The behaviour every AgentStateStore must have (see the contract on the interface). */
export function describeStoreContract(name: string, harness: StoreHarness): void {
  describe(`${name} (AgentStateStore contract)`, () => {
    let store: AgentStateStore;
    const id = (label: string) => `${label}-${newId("s")}`;

    beforeAll(async () => {
      store = await harness.open();
    });
    afterAll(async () => {
      await store?.close();
      await harness.cleanup();
    });

    it("loads nothing for a session never saved", async () => {
      expect(await store.load(id("none"))).toBeUndefined();
    });

    it("round-trips a state and counts versions from 1", async () => {
      const sessionId = id("trip");
      const state = stateWith(sessionId, ["hello", "hi there"]);
      state.summary = "earlier talk";
      state.replyContext = { replyId: "r1", iteration: 2, waitingFor: "user_confirm" };
      state.middleware = { counter: 3, nested: { list: [1, "two", null] } };
      expect(await store.save(sessionId, state, { expectedVersion: 0 })).toEqual({ version: 1 });
      expect(await store.load(sessionId)).toEqual({ state, version: 1 });
      state.summary = "later";
      expect(await store.save(sessionId, state, { expectedVersion: 1 })).toEqual({ version: 2 });
      expect(await store.load(sessionId)).toEqual({ state, version: 2 });
    });

    it("rejects a stale save with StateConflictError and keeps the stored state", async () => {
      const sessionId = id("cas");
      const first = stateWith(sessionId, ["first"]);
      await store.save(sessionId, first, { expectedVersion: 0 });
      await store.save(sessionId, first, { expectedVersion: 1 });
      const stale = store.save(sessionId, stateWith(sessionId, ["stale"]), { expectedVersion: 1 });
      await expect(stale).rejects.toThrow(StateConflictError);
      await expect(stale).rejects.toMatchObject({ sessionId, expectedVersion: 1, actualVersion: 2 });
      await expect(stale).rejects.toThrow(/expected version 1 but the store has version 2/);
      await expect(store.save(sessionId, first, { expectedVersion: 0 })).rejects.toMatchObject({
        expectedVersion: 0,
        actualVersion: 2,
      });
      const missing = id("cas-missing");
      await expect(store.save(missing, stateWith(missing, []), { expectedVersion: 4 })).rejects.toMatchObject(
        {
          actualVersion: 0,
        },
      );
      expect(await store.load(missing)).toBeUndefined();
      expect(await store.load(sessionId)).toEqual({ state: first, version: 2 });
    });

    it("saves of many sessions at once each compare-and-set on their own (stores may send them together)", async () => {
      const ids = Array.from({ length: 20 }, (_, i) => id(`many${i}`));
      await Promise.all(ids.map((s) => store.save(s, stateWith(s, ["one"]), { expectedVersion: 0 })));
      // at once: every session saves version 2, and the 4th twice from version 1: exactly one of those
      // two wins and the other conflicts (which one is the store's order: a pool's connections race)
      const again = await Promise.allSettled([
        ...ids.map((s) => store.save(s, stateWith(s, ["one", "two"]), { expectedVersion: 1 })),
        store.save(ids[3]!, stateWith(ids[3]!, ["stale"]), { expectedVersion: 1 }),
      ]);
      const fourth = [again[3]!, again.at(-1)!];
      const others = again.slice(0, ids.length).filter((_, i) => i !== 3);
      expect(others.map((r) => r.status === "fulfilled" && r.value.version)).toEqual(others.map(() => 2));
      expect(fourth.filter((r) => r.status === "fulfilled").map((r) => r.value.version)).toEqual([2]);
      expect(fourth.find((r) => r.status === "rejected")).toMatchObject({
        reason: { sessionId: ids[3], expectedVersion: 1, actualVersion: 2 },
      });
      const won = fourth[0]!.status === "fulfilled" ? 2 : 1; // the stale state holds one message
      const loaded = await Promise.all(ids.map((s) => store.load(s)));
      expect(loaded.map((l) => [l?.version, l?.state.context.length])).toEqual(
        ids.map((_, i) => [2, i === 3 ? won : 2]),
      );
    });

    it("deletes a session, after which it starts again at version 0", async () => {
      const sessionId = id("del");
      await store.save(sessionId, stateWith(sessionId, ["x"]), { expectedVersion: 0 });
      expect(await store.delete(sessionId)).toBe(true);
      expect(await store.load(sessionId)).toBeUndefined();
      expect(await store.delete(sessionId)).toBe(false);
      expect(await store.save(sessionId, stateWith(sessionId, ["y"]), { expectedVersion: 0 })).toEqual({
        version: 1,
      });
    });

    it("lists every session exactly once across pages, in session id order", async () => {
      const prefix = id("list");
      const ids = Array.from({ length: 7 }, (_, i) => `${prefix}-${i}`);
      const before = Date.now() - 60_000;
      for (const sessionId of ids)
        await store.save(sessionId, stateWith(sessionId, []), { expectedVersion: 0 });
      await store.save(ids[3]!, stateWith(ids[3]!, ["again"]), { expectedVersion: 1 });
      const seen: string[] = [];
      const pages: number[] = [];
      let cursor: string | undefined;
      do {
        const page = await store.list({ limit: 3, cursor });
        pages.push(page.sessions.length);
        for (const s of page.sessions) {
          if (!s.sessionId.startsWith(prefix)) continue;
          seen.push(s.sessionId);
          expect(s.version).toBe(s.sessionId === ids[3] ? 2 : 1);
          expect(Date.parse(s.updatedAt)).toBeGreaterThan(before);
        }
        cursor = page.nextCursor;
      } while (cursor);
      expect(seen).toEqual(ids);
      expect(Math.max(...pages)).toBeLessThanOrEqual(3);
      expect(pages.length).toBeGreaterThanOrEqual(3);
    });

    // An in-process store has no behind-its-back access, nor a second process to race with.
    const itWithRawAccess = harness.writeRaw ? it : () => {};
    const itAcrossProcesses = harness.shared ? it : () => {};

    itWithRawAccess("reports a corrupt stored state naming the session and the field", async () => {
      const sessionId = id("corrupt");
      const state = stateWith(sessionId, ["fine", "fine too"]) as unknown as {
        context: Array<{ role: string }>;
      };
      state.context[1]!.role = "robot";
      await harness.writeRaw!(sessionId, JSON.stringify(state));
      const load = store.load(sessionId);
      await expect(load).rejects.toThrow(ValidationError);
      await expect(load).rejects.toThrow(`session "${sessionId}"`);
      await expect(load).rejects.toMatchObject({ path: "context[1].role" });
    });

    it("holds a 10,000-message state", async () => {
      const sessionId = id("big");
      const state = stateWith(
        sessionId,
        Array.from({ length: 10_000 }, (_, i) => `message ${i} ${"lorem ipsum ".repeat(i % 7)}`),
      );
      await store.save(sessionId, state, { expectedVersion: 0 });
      const loaded = await store.load(sessionId);
      expect(loaded?.state.context).toHaveLength(10_000);
      expect(canonical(loaded?.state)).toBe(canonical(state));
    });

    it("keeps unicode exactly: emoji, CJK, RTL, combining marks, in text and session ids", async () => {
      const sessionId = id("会话-😀-é");
      const texts = [
        "👩‍👩‍👧‍👦 family, 🇯🇵 flag, 𝔘𝔫𝔦𝔠𝔬𝔡𝔢",
        "中文，日本語、한국어",
        "שלום عربى",
        "e\u0301 \u2028 \u2029 tab\t",
      ];
      const state = stateWith(sessionId, texts);
      state.middleware = { "键😀": "值" };
      await store.save(sessionId, state, { expectedVersion: 0 });
      expect(await store.load(sessionId)).toEqual({ state, version: 1 });
      const all = [];
      let cursor: string | undefined;
      do {
        const page = await store.list({ limit: 1000, cursor });
        all.push(...page.sessions.map((s) => s.sessionId));
        cursor = page.nextCursor;
      } while (cursor);
      expect(all).toContain(sessionId);
    });

    it("rejects lone surrogates and U+0000 clearly, naming the field, and stores nothing", async () => {
      for (const bad of ["broken \uD83D half", "nul \u0000 byte"]) {
        const sessionId = id("bad");
        const state = stateWith(sessionId, ["fine", bad]);
        const save = store.save(sessionId, state, { expectedVersion: 0 });
        await expect(save).rejects.toThrow(StateEncodingError);
        await expect(save).rejects.toMatchObject({ path: "context[1].content[0].text" });
        expect(await store.load(sessionId)).toBeUndefined();
      }
    });

    it("holds 1 MB tool outputs and 1 MB of base64 data", async () => {
      const sessionId = id("large");
      const output = "line of tool output 中文 😀\n".repeat(40_000).slice(0, 1_000_000);
      const data = Buffer.alloc(750_000, 7).toString("base64");
      const state = emptyAgentState(sessionId);
      state.context = [
        userMsg("run it"),
        assistantMsg([
          { type: "tool_call", id: "call_1", name: "bash", input: '{"cmd":"cat big"}', state: "finished" },
          { type: "tool_result", id: "call_1", name: "bash", output, state: "success" },
          { type: "data", id: "blk_1", source: { type: "base64", mediaType: "image/png", data } },
        ]),
      ];
      await store.save(sessionId, state, { expectedVersion: 0 });
      const loaded = await store.load(sessionId);
      expect(loaded?.version).toBe(1);
      expect(canonical(loaded?.state)).toBe(canonical(state));
    });

    itAcrossProcesses(
      "loses no update when two processes race on one session",
      async () => {
        const sessionId = id("race");
        const perProcess = 40;
        const initial = emptyAgentState(sessionId);
        initial.middleware = { counter: 0 };
        await store.save(sessionId, initial, { expectedVersion: 0 });
        const { url, options = {} } = harness.shared!;
        const args = [url, JSON.stringify(options), sessionId, String(perProcess)];
        const workers = [startWorker(args), startWorker(args)];
        await Promise.all(workers.map((w) => w.ready));
        for (const w of workers) w.go();
        const conflicts = await Promise.all(workers.map((w) => w.done));
        expect(
          conflicts[0]! + conflicts[1]!,
          "the processes should have collided at least once",
        ).toBeGreaterThan(0);
        const final = await store.load(sessionId);
        expect(final?.state.middleware.counter).toBe(2 * perProcess);
        expect(final?.version).toBe(2 * perProcess + 1);
      },
      60_000,
    );
  });
}
