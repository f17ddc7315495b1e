import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { expect, it } from "vitest";
import { z } from "zod";
import { Agent } from "../../src/agent/index.js";
import { evalProgress } from "../../src/app/cli/eval-command.js";
import { type AgentFactory, runCase } from "../../src/eval/index.js";
import { userMsg } from "../../src/message/index.js";
import { ScriptedModel } from "../../src/testing/index.js";
import { functionTool } from "../../src/tool/index.js";

it("a case's files are written into a fresh workspace the factory gets, removed after the run", async () => {
  let workspace = "";
  const factory: AgentFactory = (setup) => {
    workspace = setup.workspace!;
    const read = functionTool({
      name: "read",
      description: "Reads a workspace file",
      input: z.object({ path: z.string() }),
      readOnly: true,
      execute: ({ path }) => readFileSync(join(workspace, path), "utf8"),
    });
    const model = new ScriptedModel([
      { toolCalls: [{ name: "read", input: { path: "docs/a.md" } }] },
      { text: "ok" },
    ]);
    return new Agent({ name: "reader", model: setup.model(model), toolkit: [read] });
  };
  const run = await runCase(
    { id: "files", input: { messages: [userMsg("read it")], files: { "docs/a.md": "# A" } } },
    factory,
  );
  expect(run.trajectory.turns[0]!.toolCalls![0]!.result).toEqual({ state: "success", output: "# A" });
  expect(existsSync(workspace)).toBe(false);
  await expect(
    runCase({ id: "escape", input: { messages: [userMsg("x")], files: { "../x": "no" } } }, factory),
  ).rejects.toThrow('input.files: "../x" is outside the workspace');
});

it("a factory that does not use setup.model is told so", async () => {
  const model = new ScriptedModel([{ text: "hi" }]);
  await expect(
    runCase({ id: "m", input: { messages: [userMsg("x")] } }, () => new Agent({ name: "a", model })),
  ).rejects.toThrow('the agent factory did not build its agent with setup.model(...) (case "m")');
});

it("the progress bar shows done, total, passes and failures", () => {
  expect(evalProgress(5, 10, 1, 10)).toBe("\r[#####.....] 5/10 ✓4 ✗1");
  expect(evalProgress(0, 0, 0, 4)).toBe("\r[####] 0/0 ✓0 ✗0");
});
