import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { Agent, Session } from "../../src/agent/index.js";
import { fileMemoryFiles, memoryTool, stateMemoryFiles } from "../../src/memory/index.js";
import { userMsg } from "../../src/message/index.js";
import {
  CheckpointUnavailableError,
  SqliteCheckpointStore,
  SqliteStateStore,
} from "../../src/state/index.js";
import { ScriptedModel, type ScriptedStep } from "../../src/testing/index.js";
import type { Tool } from "../../src/tool/index.js";

const dirs: string[] = [];
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});
const temp = () => {
  const dir = mkdtempSync(join(tmpdir(), "agentscope-rewind-memory-"));
  dirs.push(dir);
  return dir;
};

const memoryCall = (input: Record<string, string>): ScriptedStep => ({
  toolCalls: [{ name: "Memory", input }],
});

/** Two replies: the first writes prefs.md, the second rewrites it, adds new.md and deletes old.md. */
const STEPS: ScriptedStep[] = [
  memoryCall({ command: "create", path: "/memories/prefs.md", file_text: "tea\n" }),
  { text: "noted" },
  memoryCall({ command: "create", path: "/memories/prefs.md", file_text: "coffee\n" }),
  memoryCall({ command: "create", path: "/memories/new.md", file_text: "new\n" }),
  memoryCall({ command: "delete", path: "/memories/old.md" }),
  { text: "changed" },
];

async function open(memoryKind: "file" | "state") {
  const dir = temp();
  const state = new SqliteStateStore({ path: join(dir, "state.db") });
  const memory =
    memoryKind === "file"
      ? fileMemoryFiles(join(dir, "memories"))
      : stateMemoryFiles(state, { userId: "u1" });
  await memory.write("old.md", "old\n");
  await memory.write("other.md", "another session's\n"); // a path this session never writes
  const agent = new Agent({
    name: "rememberer",
    model: new ScriptedModel(STEPS),
    toolkit: [memoryTool({ files: memory }) as Tool],
    permission: { mode: "bypass" },
  });
  const checkpoints = new SqliteCheckpointStore({ path: join(dir, "state.db") });
  const session = await Session.open(agent, state, "s1", { checkpoints: { store: checkpoints, memory } });
  return { session, memory, agent, state, checkpoints };
}

describe.each(["file", "state"] as const)("a rewind and the memory writes after it (%s memory)", (kind) => {
  it("keeps them by default; with memory: revert puts the paths written back and leaves the others", async () => {
    const { session, memory } = await open(kind);
    await session.reply(userMsg("I like tea"));
    const [afterTea] = await session.checkpoints();
    await session.reply(userMsg("actually coffee"));
    expect(await memory.read("prefs.md")).toBe("coffee\n");
    expect((await session.checkpoints()).at(-1)!.memoryWrites.map((w) => w.command)).toEqual([
      "create",
      "create",
      "delete",
    ]);

    // keep (the default): the conversation goes back, the memory stays as the agent left it
    const kept = await session.rewind(afterTea!);
    expect(kept.memoryReverted).toBeUndefined();
    expect(await memory.read("prefs.md")).toBe("coffee\n");
    expect(await memory.read("new.md")).toBe("new\n");

    // back to the present, then rewind reverting: prefs.md as it was, new.md gone, old.md back
    await session.rewind(kept.undo);
    await memory.write("other.md", "written by another session meanwhile\n");
    const reverted = await session.rewind(afterTea!, { memory: "revert" });
    expect(reverted.memoryReverted).toEqual(["new.md", "old.md", "prefs.md"]);
    expect(await memory.read("prefs.md")).toBe("tea\n");
    expect(await memory.read("new.md")).toBeUndefined();
    expect(await memory.read("old.md")).toBe("old\n");
    expect(await memory.read("other.md")).toBe("written by another session meanwhile\n");
    expect(session.state.context).toHaveLength(2);

    // undone with revert too: the memory as the agent had left it
    const undone = await session.rewind(reverted.undo, { memory: "revert" });
    expect(undone.memoryReverted).toEqual(["new.md", "old.md", "prefs.md"]);
    expect(await memory.read("prefs.md")).toBe("coffee\n");
    expect(await memory.read("old.md")).toBeUndefined();
  });
});

it("revert on checkpoints kept without the memory directory is refused before anything changes", async () => {
  const dir = temp();
  const state = new SqliteStateStore({ path: join(dir, "state.db") });
  const memory = fileMemoryFiles(join(dir, "memories"));
  const agent = new Agent({
    name: "rememberer",
    model: new ScriptedModel(STEPS),
    toolkit: [memoryTool({ files: memory }) as Tool],
    permission: { mode: "bypass" },
  });
  const store = new SqliteCheckpointStore({ path: join(dir, "state.db") });
  const session = await Session.open(agent, state, "s2", { checkpoints: { store } });
  await session.reply(userMsg("I like tea"));
  const [afterTea] = await session.checkpoints();
  await session.reply(userMsg("actually coffee"));
  await expect(session.rewind(afterTea!, { memory: "revert" })).rejects.toThrow(CheckpointUnavailableError);
  expect(session.state.context).toHaveLength(4);
  expect(await session.checkpoints()).toHaveLength(2);
  expect(await memory.read("prefs.md")).toBe("coffee\n");
});
