import { existsSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { WorkspaceManager } from "../../src/app/server/workspace-manager.js";
import { tempDir } from "./helpers.js";

describe("WorkspaceManager", () => {
  const { dir: dataDir, cleanup } = tempDir("agentscope-manager-");
  afterAll(cleanup);

  it("gives each session its own directory, created on first use and removed with the session", async () => {
    const manager = new WorkspaceManager({ dataDir });
    const a = { sessionId: "a", owner: "alice" };
    const b = { sessionId: "b", owner: "alice" };
    expect(existsSync(manager.rootOf(a))).toBe(false);
    const rootA = await manager.ensure(a);
    const rootB = await manager.ensure(b);
    expect(rootA).toBe(join(dataDir, "workspaces", "sessions", "s-a"));
    expect(rootB).not.toBe(rootA);
    writeFileSync(join(rootA, "kept.txt"), "x");
    expect(await new WorkspaceManager({ dataDir }).ensure(a)).toBe(rootA);
    expect(existsSync(join(rootA, "kept.txt"))).toBe(true);
    await manager.remove(a);
    expect(existsSync(rootA)).toBe(false);
    expect(existsSync(rootB)).toBe(true);
  });

  it("with user scope, a user's sessions share one workspace that outlives them", async () => {
    const manager = new WorkspaceManager({ dataDir, scope: "user" });
    const first = await manager.ensure({ sessionId: "s1", owner: "bob" });
    expect(await manager.ensure({ sessionId: "s2", owner: "bob" })).toBe(first);
    expect(await manager.ensure({ sessionId: "s3", owner: "carol" })).not.toBe(first);
    await manager.remove({ sessionId: "s1", owner: "bob" });
    expect(existsSync(first)).toBe(true);
  });

  it("keeps odd ids inside its directory", async () => {
    const manager = new WorkspaceManager({ dataDir, scope: "user" });
    for (const owner of ["..", "../../etc", "/", "a/b"]) {
      const root = await manager.ensure({ sessionId: "x", owner });
      expect(root.startsWith(join(dataDir, "workspaces", "users", "u-"))).toBe(true);
    }
    const sessions = new WorkspaceManager({ dataDir });
    expect(sessions.rootOf({ sessionId: "..", owner: "o" })).toBe(
      join(dataDir, "workspaces", "sessions", "s-.."),
    );
  });

  it("its sandbox runner refuses a command outside every workspace", async () => {
    const runner = new WorkspaceManager({ dataDir, sandbox: { maxProcesses: null } }).runner()!;
    const run = async () => {
      for await (const _ of runner.run({
        command: "pwd",
        cwd: dataDir,
        timeoutMs: 1000,
        maxOutputChars: 1000,
        signal: new AbortController().signal,
      })) {
      }
    };
    await expect(run()).rejects.toThrow(/only run inside a session workspace/);
    expect(new WorkspaceManager({ dataDir }).runner()).toBeUndefined();
  });

  it("wants an absolute data directory", () => {
    expect(() => new WorkspaceManager({ dataDir: "relative" })).toThrow(/absolute path/);
  });
});
