import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { createStateStore, InMemoryStateStore, MissingDriverError } from "../../src/index.js";
import { JsonFileStateStore, SqliteStateStore } from "../../src/state/index.js";
import { importDriver } from "../../src/state/lazy-driver.js";
import { stateWith } from "./store-contract.js";

describe("createStateStore", () => {
  it("makes an in-memory store from memory:", async () => {
    expect(await createStateStore("memory:")).toBeInstanceOf(InMemoryStateStore);
  });

  it("makes a JSON file store from file:./dir and file:///abs/dir", async () => {
    const relative = await createStateStore("file:./sessions-dir");
    expect(relative).toBeInstanceOf(JsonFileStateStore);
    expect((relative as JsonFileStateStore).directory).toBe(resolve("sessions-dir"));
    const absolute = await createStateStore("file:///tmp/agentscope-abs");
    expect((absolute as JsonFileStateStore).directory).toBe("/tmp/agentscope-abs");
  });

  it("makes a ready SQLite store from sqlite:<path> and sqlite::memory:", async () => {
    const dir = mkdtempSync(join(tmpdir(), "agentscope-create-"));
    const file = join(dir, "x.db");
    const store = await createStateStore(`sqlite:${file}`, { table: "custom_states" });
    expect(store).toBeInstanceOf(SqliteStateStore);
    expect(existsSync(file)).toBe(true);
    await store.close();
    const inMemory = await createStateStore("sqlite::memory:");
    await inMemory.save("a", stateWith("a", ["x"]), { expectedVersion: 0 });
    expect((await inMemory.load("a"))?.version).toBe(1);
    await inMemory.close();
    rmSync(dir, { recursive: true });
  });

  it("names the supported schemes for a URL it does not know", async () => {
    await expect(createStateStore("mongodb://localhost")).rejects.toThrow(
      /unsupported store URL "mongodb:\/\/localhost"; use one of memory:, file:.*postgres:\/\/, mysql:\/\//,
    );
    await expect(createStateStore("file:")).rejects.toThrow(/names no directory/);
  });

  it("fails at creation, naming the server, when a database cannot be reached", async () => {
    await expect(createStateStore("postgres://postgres:secret@127.0.0.1:1/test")).rejects.toThrow(
      /PostgresStateStore cannot prepare postgres:\/\/postgres:\*\*\*@127\.0\.0\.1:1\/test/,
    );
    await expect(createStateStore("mariadb://root@127.0.0.1:1/test")).rejects.toThrow(
      /MySqlStateStore cannot prepare mysql:\/\/root@127\.0\.0\.1:1\/test/,
    );
  });
});

describe("lazily imported drivers", () => {
  it("say which package to install when the driver is missing", async () => {
    const name = "agentscope-driver-that-is-not-installed";
    const error = await importDriver(() => import(name), name, "ExampleStateStore").catch((e: unknown) => e);
    expect(error).toBeInstanceOf(MissingDriverError);
    expect((error as Error).message).toBe(
      `ExampleStateStore needs the "${name}" package, which is not installed: npm install ${name}`,
    );
  });

  it("pass other import failures through unchanged", async () => {
    const broken = new Error("driver crashed while loading");
    await expect(importDriver(() => Promise.reject(broken), "pg", "PostgresStateStore")).rejects.toBe(broken);
  });
});
