import { mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { JsonFileStateStore } from "../../src/state/index.js";
import { describeStoreContract, stateWith } from "./store-contract.js";

const directory = mkdtempSync(join(tmpdir(), "agentscope-file-store-"));

describeStoreContract("JsonFileStateStore", {
  open: async () => new JsonFileStateStore(directory),
  writeRaw: async (sessionId, stateJson) => {
    const stem = encodeURIComponent(sessionId).replace(
      /[^a-z0-9_%-]/g,
      (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`,
    );
    await writeFile(
      join(directory, `${stem}.json`),
      `{"version":1,"updatedAt":"2024-01-01T00:00:00.000Z","state":${stateJson}}`,
    );
  },
  shared: { url: `file:${directory}` },
  cleanup: async () => rmSync(directory, { recursive: true, force: true }),
});

describe("JsonFileStateStore files", () => {
  it("leaves one file per session and no temp or lock files behind", async () => {
    const dir = mkdtempSync(join(tmpdir(), "agentscope-file-store-"));
    const store = new JsonFileStateStore({ directory: dir });
    await store.save("abc", stateWith("abc", ["x"]), { expectedVersion: 0 });
    await store.save("abc", stateWith("abc", ["y"]), { expectedVersion: 1 });
    await store.save("Upper.Case", stateWith("Upper.Case", ["z"]), { expectedVersion: 0 });
    expect(readdirSync(dir).sort()).toEqual(["%55pper%2E%43ase.json", "abc.json"]);
    rmSync(dir, { recursive: true });
  });

  it("breaks a lock left by a process that died", async () => {
    const dir = mkdtempSync(join(tmpdir(), "agentscope-file-store-"));
    const store = new JsonFileStateStore({ directory: dir, lock: { timeoutMs: 500 } });
    await store.save("s", stateWith("s", []), { expectedVersion: 0 });
    writeFileSync(join(dir, "s.json.lock"), `999999999 ${(await import("node:os")).hostname()} deadbeef`);
    expect(await store.save("s", stateWith("s", ["after crash"]), { expectedVersion: 1 })).toEqual({
      version: 2,
    });
    rmSync(dir, { recursive: true });
  });

  it("waits for a live lock and then gives up with a message naming the lock file", async () => {
    const dir = mkdtempSync(join(tmpdir(), "agentscope-file-store-"));
    const store = new JsonFileStateStore({ directory: dir, lock: { timeoutMs: 200 } });
    writeFileSync(join(dir, "s.json.lock"), `${process.pid} ${(await import("node:os")).hostname()} live`);
    await expect(store.save("s", stateWith("s", []), { expectedVersion: 0 })).rejects.toThrow(
      /could not lock .*s\.json\.lock/,
    );
    rmSync(dir, { recursive: true });
  });
});

describe("JsonFileStateStore listing", () => {
  it("ignores files in the directory that it did not write", async () => {
    const dir = mkdtempSync(join(tmpdir(), "agentscope-file-store-"));
    const store = new JsonFileStateStore(dir);
    await store.save("kept", stateWith("kept", []), { expectedVersion: 0 });
    for (const stray of ["bad%zz.json", "Notes.json", "kept.json.1a2b.tmp", "readme.txt"]) {
      writeFileSync(join(dir, stray), "{}");
    }
    expect((await store.list()).sessions.map((s) => s.sessionId)).toEqual(["kept"]);
    rmSync(dir, { recursive: true });
  });
});
