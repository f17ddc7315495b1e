import { spawn } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Redis } from "ioredis";
import pg from "pg";
import { afterAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { Agent, Session, SessionBusyError } from "../../src/agent/index.js";
import { blocksOf, textOf, userMsg } from "../../src/message/index.js";
import {
  type AgentStateStore,
  type CheckpointStore,
  CheckpointUnavailableError,
} from "../../src/state/index.js";
import { ScriptedModel, type ScriptedStep } from "../../src/testing/index.js";
import { functionTool } from "../../src/tool/index.js";
import { SandboxWorkspace } from "../../src/workspace/index.js";
import { missingService, reportMissingService, runName } from "../support/services.js";
import { bubblewrapMissing, tempDir } from "./helpers.js";
import { openTimeTravelStores, type TimeTravelStoreConfig } from "./time-travel-stores.js";

interface Stores {
  name: string;
  driver: string;
  config: TimeTravelStoreConfig;
  missing?: string;
  cleanup(): Promise<void>;
}

const sqliteDir = mkdtempSync(join(tmpdir(), "agentscope-tt-"));
const redisPrefix = `${runName("tt")}:`;
const pgUrl = "postgres://postgres@127.0.0.1:5432/test";
const pgTable = runName("tt");
const drivers: Stores[] = [
  {
    name: "SQLite",
    driver: "sqlite",
    config: { dir: sqliteDir },
    cleanup: async () => rmSync(sqliteDir, { recursive: true, force: true }),
  },
  {
    name: "Redis",
    driver: "redis",
    config: { prefix: redisPrefix },
    missing: await missingService("Redis", 6379),
    cleanup: async () => {
      const redis = new Redis();
      const keys = await redis.keys(`${redisPrefix}*`);
      if (keys.length) await redis.del(...keys);
      await redis.quit();
    },
  },
  {
    name: "PostgreSQL",
    driver: "postgres",
    config: { url: pgUrl, table: pgTable },
    missing: await missingService("PostgreSQL", 5432),
    cleanup: async () => {
      const client = new pg.Client({ connectionString: pgUrl });
      await client.connect();
      await client.query(
        `DROP TABLE IF EXISTS ${pgTable}_patches, ${pgTable}, ${pgTable}_migrations, ${pgTable}_cp_blobs, ${pgTable}_cp_records`,
      );
      await client.end();
    },
  },
];

const repo = join(import.meta.dirname, "../..");
const child = join(import.meta.dirname, "fixtures/time-travel-child.ts");
const sandboxMissing = await bubblewrapMissing();
const bash = (command: string) => ({ toolCalls: [{ name: "Bash", input: { command } }] });

for (const driver of drivers) {
  describe(`time travel on ${driver.name} with a sandboxed workspace`, () => {
    if (driver.missing) return reportMissingService(driver.missing);
    if (sandboxMissing) return reportMissingService(sandboxMissing);
    const opened: Array<{ state: AgentStateStore; checkpoints: CheckpointStore }> = [];
    const dirs: Array<() => void> = [];
    const stores = () => {
      const pair = openTimeTravelStores(driver.driver, driver.config);
      opened.push(pair);
      return pair;
    };
    const root = () => {
      const { dir, cleanup } = tempDir("agentscope-tt-ws-");
      dirs.push(cleanup);
      return dir;
    };
    afterAll(async () => {
      for (const pair of opened) {
        await pair.state.close();
        await pair.checkpoints.close();
      }
      for (const cleanup of dirs) cleanup();
      await driver.cleanup();
    });

    /** A session whose agent runs `steps` with the sandbox's tools (bypass mode unless told). */
    async function open(
      sessionId: string,
      dir: string,
      steps: ScriptedStep[],
      pair = stores(),
      mode: "bypass" | "default" = "bypass",
    ) {
      const workspace = await SandboxWorkspace.open({ root: dir });
      const options = await workspace.agentOptions({ permission: { mode } });
      const agent = new Agent({ name: "worker", model: new ScriptedModel(steps), ...options });
      const session = await Session.open(agent, pair.state, sessionId, {
        checkpoints: { store: pair.checkpoints, workspace: dir },
      });
      return { session, workspace, agent };
    }

    it("a file changed by a shell command is restored by a rewind, and the rewind is undone", async () => {
      const dir = root();
      writeFileSync(join(dir, "config.txt"), "good\n");
      const { session, workspace } = await open(`tt-${runName("a")}`, dir, [
        bash("cat config.txt"),
        { text: "looked" },
        bash("echo broken > config.txt && rm -f extra.txt && echo new > made.txt"),
        { text: "changed it" },
      ]);
      await session.reply(userMsg("look at the config"));
      const [good] = await session.checkpoints();
      expect(good?.kind).toBe("reply_end");
      await session.reply(userMsg("now break it"));
      expect(readFileSync(join(dir, "config.txt"), "utf8")).toBe("broken\n");
      expect(session.state.context).toHaveLength(4);

      const result = await session.rewind(good!);
      expect(readFileSync(join(dir, "config.txt"), "utf8")).toBe("good\n");
      expect(() => readFileSync(join(dir, "made.txt"))).toThrow();
      expect(session.state.context.map(textOf)).toEqual(["look at the config", "looked"]);
      // saved: a process that loads the session sees the rewound state
      expect((await session.store.load(session.sessionId))?.state.context).toHaveLength(2);

      await session.rewind(result.undo);
      expect(readFileSync(join(dir, "config.txt"), "utf8")).toBe("broken\n");
      expect(readFileSync(join(dir, "made.txt"), "utf8")).toBe("new\n");
      expect(session.state.context).toHaveLength(4);
      await workspace.close();
    });

    it("a fork's workspace and conversation are independent of its origin afterwards", async () => {
      const [originDir, forkDir] = [root(), root()];
      const steps = [
        bash("echo v1 > state.txt"),
        { text: "wrote v1" },
        bash("echo v2 > state.txt"),
        { text: "v2" },
      ];
      const { session, workspace } = await open(`tt-${runName("o")}`, originDir, steps);
      await session.reply(userMsg("write v1"));
      const [v1] = await session.checkpoints();
      await session.reply(userMsg("write v2"));

      const fork = await session.fork(v1!, { workspace: forkDir, sessionId: `tt-${runName("f")}` });
      expect(readFileSync(join(forkDir, "state.txt"), "utf8")).toBe("v1\n");
      expect(fork.state.context.map(textOf)).toEqual(["write v1", "wrote v1"]);
      expect(fork.state.permission.workingDirectories).toEqual([forkDir]);
      expect((await fork.timeline!.head()).origin).toEqual({
        sessionId: session.sessionId,
        checkpoint: v1!.id,
      });

      // the fork runs on: its own file changes, its own conversation; the origin keeps its own
      const forkWorkspace = await SandboxWorkspace.open({ root: forkDir });
      const forkAgent = new Agent({
        name: "worker",
        model: new ScriptedModel([bash("echo fork > state.txt"), { text: "forked" }]),
        ...(await forkWorkspace.agentOptions({ permission: { mode: "bypass" } })),
      });
      const reopened = await Session.open(forkAgent, session.store, fork.sessionId, {
        checkpoints: { store: fork.timeline!.store, workspace: forkDir },
      });
      await reopened.reply(userMsg("change it in the fork"));
      expect(readFileSync(join(forkDir, "state.txt"), "utf8")).toBe("fork\n");
      expect(readFileSync(join(originDir, "state.txt"), "utf8")).toBe("v2\n");
      expect(session.state.context).toHaveLength(4);
      expect((await session.store.load(session.sessionId))?.state.context.map(textOf)).toEqual([
        "write v1",
        "wrote v1",
        "write v2",
        "v2",
      ]);
      expect((await session.store.load(fork.sessionId))?.state.context.map(textOf).at(-1)).toBe("forked");
      await workspace.close();
      await forkWorkspace.close();
    });

    it("a rewind during a running reply is refused and changes nothing", async () => {
      const dir = root();
      let release!: () => void;
      let started!: () => void;
      const running = new Promise<void>((resolve) => {
        started = resolve;
      });
      const gate = new Promise<void>((resolve) => {
        release = resolve;
      });
      const { session, agent, workspace } = await open(`tt-${runName("r")}`, dir, [
        { text: "first" },
        { toolCalls: [{ name: "wait", input: {} }] },
        { text: "after the wait" },
      ]);
      agent.toolkit.register(
        functionTool({
          name: "wait",
          description: "waits",
          input: z.object({}),
          execute: async () => {
            started();
            await gate;
            return "waited";
          },
        }),
      );
      await session.reply(userMsg("one"));
      const [first] = await session.checkpoints();
      const reply = session.reply(userMsg("two"));
      await running;
      await expect(session.rewind(first!)).rejects.toBeInstanceOf(SessionBusyError);
      release();
      const msg = await reply;
      expect(textOf(msg)).toContain("after the wait");
      expect(session.state.context).toHaveLength(4);
      expect((await session.checkpoints()).map((c) => c.kind)).toEqual(["reply_end", "reply_end"]);
      await workspace.close();
    });

    it("a paused call rewound away is closed: the session no longer waits for it", async () => {
      const dir = root();
      const { session, workspace } = await open(
        `tt-${runName("p")}`,
        dir,
        [{ text: "hi" }, bash("echo risky > risky.txt")],
        stores(),
        "default",
      );
      await session.reply(userMsg("hello"));
      const [before] = await session.checkpoints();
      const paused = await session.reply(userMsg("do something risky"));
      expect(blocksOf(paused, "tool_call")[0]?.state).toBe("asking");
      expect(session.state.replyContext?.waitingFor).toBe("user_confirm");
      const pause = (await session.checkpoints()).at(-1)!;
      expect(pause.kind).toBe("pause");
      expect(pause.waitingFor).toBe("user_confirm");

      const result = await session.rewind(before!);
      expect(result.closedReply).toBe(paused.id);
      expect(session.state.replyContext).toBeUndefined();
      expect((await session.store.load(session.sessionId))?.state.replyContext).toBeUndefined();
      expect(() => readFileSync(join(dir, "risky.txt"))).toThrow();
      await workspace.close();
    });

    it("after a restart (stores opened again) the checkpoints and branches are intact and restorable", async () => {
      const dir = root();
      const id = `tt-${runName("k")}`;
      const first = await open(id, dir, [
        bash("echo one > f.txt"),
        { text: "1" },
        bash("echo two > f.txt"),
        { text: "2" },
      ]);
      await first.session.reply(userMsg("one"));
      const [one] = await first.session.checkpoints();
      await first.session.reply(userMsg("two"));
      const rewound = await first.session.rewind(one!);
      await first.workspace.close();

      const again = await open(id, dir, [], stores());
      const listed = await again.session.checkpoints();
      expect(listed.map((c) => c.kind)).toEqual(["reply_end", "reply_end", "rewind"]);
      const head = await again.session.timeline!.head();
      expect(head.branch).toBe(rewound.branch);
      expect(head.at).toBe(one!.id);
      expect(again.session.state.context).toHaveLength(2);
      await again.session.rewind(rewound.undo.id);
      expect(readFileSync(join(dir, "f.txt"), "utf8")).toBe("two\n");
      expect(again.session.state.context.map(textOf)).toEqual(["one", "1", "two", "2"]);
      await again.workspace.close();
    });

    it("after kill -9 in the middle of a reply, the checkpoints and branches are intact and a rewind restores the files", async () => {
      const dir = root();
      const workspace = join(dir, "ws");
      mkdirSync(workspace);
      const sessionId = `tt-${runName("kill")}`;
      const proc = spawn(
        process.execPath,
        ["--import", "tsx", child, driver.driver, JSON.stringify(driver.config), sessionId, workspace],
        { cwd: repo, stdio: "ignore" },
      );
      const hanging = join(dir, `${sessionId}.hanging`);
      while (!existsSync(hanging)) {
        if (proc.exitCode !== null) throw new Error(`the child exited with ${proc.exitCode}`);
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      proc.kill("SIGKILL");
      if (proc.signalCode === null) await new Promise((resolve) => proc.once("exit", resolve));
      expect(readFileSync(join(workspace, "f.txt"), "utf8")).toBe("three");

      const { session } = await open(sessionId, workspace, [], stores());
      const listed = await session.checkpoints();
      expect(listed.map((c) => [c.id, c.kind])).toEqual([
        ["cp-1", "reply_end"],
        ["cp-2", "reply_end"],
        ["cp-3", "rewind"],
      ]);
      const head = await session.timeline!.head();
      expect(head.at).toBe("cp-1");
      expect(Object.keys(head.branches)).toHaveLength(2);
      // the reply cut off by the kill is closed on open; rewinding to the line rewound away restores its file
      await session.rewind("cp-3");
      expect(readFileSync(join(workspace, "f.txt"), "utf8")).toBe("two");
      expect(session.state.context.map(textOf)).toEqual(["one", "1", "two", "2"]);
      await session.rewind("cp-1");
      expect(readFileSync(join(workspace, "f.txt"), "utf8")).toBe("one");
    });

    it("a checkpoint whose snapshot was pruned says so and is refused whole", async () => {
      const dir = root();
      const pair = stores();
      const workspace = await SandboxWorkspace.open({ root: dir });
      const agent = new Agent({
        name: "worker",
        model: new ScriptedModel([
          bash("head -c 3000 /dev/zero > big.bin"),
          { text: "1" },
          bash("head -c 3000 /dev/urandom > big.bin"),
          { text: "2" },
        ]),
        ...(await workspace.agentOptions({ permission: { mode: "bypass" } })),
      });
      const session = await Session.open(agent, pair.state, `tt-${runName("q")}`, {
        checkpoints: { store: pair.checkpoints, workspace: dir, retention: { maxBytes: 4000 } },
      });
      await session.reply(userMsg("one"));
      await session.reply(userMsg("two"));
      const [old, recent] = await session.checkpoints();
      expect(old?.workspace?.status).toBe("pruned");
      expect(recent?.workspace?.status).toBe("kept");
      await expect(session.rewind(old!)).rejects.toBeInstanceOf(CheckpointUnavailableError);
      expect(session.state.context).toHaveLength(4);
      expect(readFileSync(join(dir, "big.bin")).byteLength).toBe(3000);
      await workspace.close();
    });
  });
}
