import { describe, expect, it } from "vitest";
import { createBackend } from "../../src/app/server/backend/create-backend.js";
import { createStateStore } from "../../src/state/index.js";
import { missingService, reportMissingService, runName } from "../support/services.js";
import { describeBackendContract, type FamilyUnderTest } from "./backend-contract.js";
import { dropBackend } from "./drop-backend.js";
import { stateWith } from "./store-contract.js";

export type { FamilyUnderTest } from "./backend-contract.js";
export { freshSqliteUrl } from "./backend-contract.js";

/**
 * A driver family against its real server: the service backend's contract, and its state store and
 * service backend opened from one URL seeing the same states; for a family without a backend
 * (`noBackend`: what its error must say), the store keeps state and the service refuses the URL with
 * its reason. Each driver's `<driver>-store.test.ts` calls it beside `describeStoreContract`.
 */
export function describeFamilyContract(kind: FamilyUnderTest & { noBackend?: RegExp }): void {
  if (!kind.noBackend) describeBackendContract(kind);
  if (!kind.shared) return; // memory: each store and backend is its own
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
