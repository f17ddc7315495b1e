import { existsSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { Agent } from "../../src/agent/index.js";
import { blocksOf } from "../../src/message/index.js";
import { ruleFromString } from "../../src/permission/index.js";
import { ScriptedModel } from "../../src/testing/index.js";
import type { ProcessRequest } from "../../src/tool/index.js";
import { BubblewrapRunner, SandboxUnavailableError, SandboxWorkspace } from "../../src/workspace/index.js";
import { reportMissingService } from "../support/services.js";
import { bubblewrapMissing, tempDir } from "./helpers.js";

const missing = await bubblewrapMissing();

describe("a sandbox that cannot run says so and never falls back to the host", () => {
  const { dir: root, cleanup } = tempDir();
  afterAll(cleanup);

  it("open() rejects with a typed error when bubblewrap is not installed", async () => {
    const opening = SandboxWorkspace.open({ root, policy: { bwrapPath: "/nonexistent/bwrap" } });
    await expect(opening).rejects.toSatisfy(
      (error: unknown) => SandboxUnavailableError.isInstance(error) && error.reason === "not_installed",
    );
    await expect(opening).rejects.toThrow(/apt-get install bubblewrap/);
  });

  it("a command fails with that error instead of running unsandboxed", async () => {
    const runner = new BubblewrapRunner(root, { bwrapPath: "/nonexistent/bwrap", maxProcesses: null });
    const marker = join(root, "ran-on-host");
    const run = async () => {
      for await (const _ of runner.run(request(`touch ${marker}`, root))) {
      }
    };
    await expect(run()).rejects.toBeInstanceOf(SandboxUnavailableError);
    expect(existsSync(marker)).toBe(false);
  });

  it("refuses a working directory outside its workspace", async () => {
    const runner = new BubblewrapRunner(root, { maxProcesses: null });
    const run = async () => {
      for await (const _ of runner.run(request("pwd", "/"))) {
      }
    };
    await expect(run()).rejects.toThrow(/only run commands inside its workspace/);
  });
});

describe("the permission engine decides before the sandbox runs anything", () => {
  if (missing) return reportMissingService(missing);
  const { dir: root, cleanup } = tempDir();
  afterAll(cleanup);

  it("a denied command never reaches the sandbox; an allowed one runs in it", async () => {
    const workspace = await SandboxWorkspace.open({ root });
    const started: string[] = [];
    const run = workspace.runner.run.bind(workspace.runner);
    workspace.runner.run = (req) => {
      started.push(req.command);
      return run(req);
    };
    const model = new ScriptedModel([
      {
        toolCalls: [
          { name: "Bash", input: { command: "touch denied.txt" } },
          { name: "Bash", input: { command: "echo sandboxed > allowed.txt && cat allowed.txt" } },
        ],
      },
      { text: "done" },
    ]);
    const agent = new Agent({
      name: "worker",
      model,
      ...(await workspace.agentOptions({
        permission: { mode: "bypass", rules: [ruleFromString("Bash(touch:*)", "deny", "config")] },
      })),
    });
    const reply = await agent.reply({
      id: "u1",
      name: "user",
      role: "user",
      content: [],
      metadata: {},
      createdAt: "",
    });
    const results = blocksOf(reply, "tool_result");
    expect(results.map((result) => result.state)).toEqual(["denied", "success"]);
    expect(started).toEqual(["echo sandboxed > allowed.txt && cat allowed.txt"]);
    expect(existsSync(join(root, "denied.txt"))).toBe(false);
    expect(existsSync(join(root, "allowed.txt"))).toBe(true);
    expect(JSON.stringify(model.calls[0]?.messages)).toContain("Commands run in a sandbox");
    await workspace.close();
  });
});

function request(command: string, cwd: string): ProcessRequest {
  return { command, cwd, timeoutMs: 10_000, maxOutputChars: 10_000, signal: new AbortController().signal };
}
