import { existsSync, readFileSync } from "node:fs";
import { hostname } from "node:os";
import { describe, expect, it } from "vitest";
import { createBackend } from "../../src/app/server/backend/create-backend.js";
import { newestEvent } from "../../src/app/server/backend/newest-event.js";
import { ownerIsGone } from "../../src/state/service/lease-owner.js";
import { STORE_FAMILIES } from "../../src/state/store-families.js";
import { event } from "./backend-contract.js";

it("every family the store URLs dispatch to runs the family contract in test/state/<scheme>-store.test.ts (file: aside)", () => {
  for (const family of STORE_FAMILIES) {
    if (family.schemes.includes("file")) continue;
    const file = new URL(`./${family.schemes[0]}-store.test.ts`, import.meta.url);
    const text = existsSync(file) ? readFileSync(file, "utf8") : "";
    expect(text.includes("describeFamilyContract("), `${file.pathname} runs describeFamilyContract`).toBe(
      true,
    );
  }
});

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
