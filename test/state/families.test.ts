import { hostname } from "node:os";
import { describe, expect, it } from "vitest";
import { createBackend } from "../../src/app/server/backend/create-backend.js";
import { newestEvent } from "../../src/app/server/backend/newest-event.js";
import { createStateStore } from "../../src/state/index.js";
import { ownerIsGone } from "../../src/state/service/lease-owner.js";
import { STORE_FAMILIES } from "../../src/state/store-families.js";
import { missingService, reportMissingService, runName } from "../support/services.js";
import { describeBackendContract, event, type FamilyUnderTest, freshSqliteUrl } from "./backend-contract.js";
import { dropBackend } from "./drop-backend.js";
import { stateWith } from "./store-contract.js";

/**
 * Every driver family against its real server: the service backend's contract, and its state store
 * and service backend opened from one URL seeing the same states. A new family adds its line here
 * (its store's own contract is in `<driver>-store.test.ts`, through `describeStoreContract`).
 */
const FAMILIES: (FamilyUnderTest & { noBackend?: RegExp })[] = [
  { name: "memory", url: () => "memory:", shared: false },
  { name: "SQLite", url: freshSqliteUrl, shared: true },
  {
    name: "Redis",
    url: () => "redis://127.0.0.1:6379",
    port: 6379,
    shared: true,
    replicaBus: true,
    prefixEnd: ":",
  },
  {
    name: "PostgreSQL",
    url: () => "postgres://postgres@127.0.0.1:5432/test",
    port: 5432,
    shared: true,
    replicaBus: true,
  },
  {
    name: "MySQL",
    url: () => "mysql://root@127.0.0.1:3306/test",
    port: 3306,
    shared: true,
    noBackend:
      /MySQL keeps agent state \(createStateStore\) but cannot back the service: .*no such notification/,
  },
];

it("tests every family the store URLs dispatch to (file: aside, a store of JSON files only)", () => {
  const tested = FAMILIES.map((kind) => kind.url().split(":")[0]);
  const families = STORE_FAMILIES.map((family) => family.schemes[0]).filter((scheme) => scheme !== "file");
  expect(tested.sort()).toEqual(families.sort());
});

for (const kind of FAMILIES) {
  if (!kind.noBackend) describeBackendContract(kind);
  if (!kind.shared) continue; // memory: each store and backend is its own

  describe(`the ${kind.name} family`, async () => {
    const missing = kind.port ? await missingService(kind.name, kind.port) : undefined;
    if (missing) return reportMissingService(missing);
    const url = kind.url();
    const noBackend = kind.noBackend;
    if (noBackend) {
      it("keeps agent state, and the service says why it cannot run on it", async () => {
        const table = runName("fam");
        const store = await createStateStore(url, { table });
        await store.save("s", stateWith("s", ["kept"]), { expectedVersion: 0 });
        expect((await store.load("s"))?.version).toBe(1);
        await store.delete("s");
        await store.close?.();
        await expect(createBackend(url)).rejects.toThrow(noBackend);
      });
      return;
    }

    it("its state store and its service backend, opened from one URL, see the same states", async () => {
      const prefix = `${runName("fam")}${kind.prefixEnd ?? "_"}`;
      const backend = await createBackend(url, { prefix });
      // the service keeps its states in `<prefix>state` (a table, or a key prefix with its `:`)
      const where = kind.prefixEnd === ":" ? { prefix: `${prefix}state:` } : { table: `${prefix}state` };
      const store = await createStateStore(url, where);
      try {
        const fromStore = stateWith("from-store", ["a"]);
        const saved = await store.save("from-store", fromStore, { expectedVersion: 0 });
        expect(await backend.store.load("from-store")).toEqual({ state: fromStore, version: saved.version });
        const fromService = stateWith("from-service", ["b"]);
        await backend.store.save("from-service", fromService, { expectedVersion: 0 });
        expect(await store.load("from-service")).toEqual({ state: fromService, version: 1 });
        const listed = await store.list({ limit: 10 });
        expect(listed.sessions.map((s) => s.sessionId)).toEqual(["from-service", "from-store"]);
      } finally {
        await store.close?.();
        await backend.close();
        await dropBackend(url, prefix);
      }
    });
  });
}

describe("lease owners", () => {
  it("a lease of a process that no longer exists on this host is abandoned; a live one or another host's is not", () => {
    expect(ownerIsGone(`${hostname()}:2147483646:x`)).toBe(true);
    expect(ownerIsGone(`${hostname()}:${process.ppid}:x`)).toBe(false);
    expect(ownerIsGone("another-host:2147483646:x")).toBe(false);
  });
});
describe("newestEvent", () => {
  it("asks lastSeq then reads that one event when a log has no `last` (a custom backend)", async () => {
    const backend = await createBackend("memory:");
    const { last: _last, ...withoutLast } = backend.events;
    const log = {
      ...withoutLast,
      append: backend.events.append.bind(backend.events),
      read: backend.events.read.bind(backend.events),
      lastSeq: backend.events.lastSeq.bind(backend.events),
      firstSeq: backend.events.firstSeq.bind(backend.events),
      delete: backend.events.delete.bind(backend.events),
    };
    expect(await newestEvent(log, "s")).toBeUndefined();
    await log.append("s", [event(1), event(2)]);
    const newest = await newestEvent(log, "s");
    expect(newest).toMatchObject({ seq: 2, event: { name: "e2" } });
    await backend.close();
  });
});
