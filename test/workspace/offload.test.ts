import { existsSync, readFileSync } from "node:fs";
import { afterAll, describe, expect, it } from "vitest";
import { Agent } from "../../src/agent/index.js";
import { blocksOf, type Msg, textOf, userMsg } from "../../src/message/index.js";
import { toolResultLimitMiddleware } from "../../src/middleware/index.js";
import { ScriptedModel } from "../../src/testing/index.js";
import { LocalWorkspace } from "../../src/workspace/index.js";
import { tempDir } from "./helpers.js";

/** The text of the last tool result the model was sent. */
function lastResult(messages: Msg[]): string {
  const results = blocksOf(messages.at(-1)!, "tool_result");
  const output = results.at(-1)?.output;
  return typeof output === "string" ? output : JSON.stringify(output);
}

describe("large tool output is offloaded to a file in the workspace", () => {
  const { dir: root, cleanup } = tempDir();
  afterAll(cleanup);

  it("the model gets a preview and a path, and reads the rest with Read", async () => {
    const workspace = new LocalWorkspace({ root });
    let offloaded = "";
    const model = new ScriptedModel([
      { toolCalls: [{ id: "call-big", name: "Bash", input: { command: "seq 1 5000" } }] },
      (messages) => {
        const preview = lastResult(messages);
        offloaded = /the whole output is in (\S+):/.exec(preview)?.[1] ?? "";
        return { toolCalls: [{ id: "call-read", name: "Read", input: { path: offloaded, offset: 4998 } }] };
      },
      (messages) => ({ text: `the tail: ${lastResult(messages)}` }),
    ]);
    const agent = new Agent({
      name: "a",
      model,
      ...(await workspace.agentOptions({ permission: { mode: "bypass" } })),
      middlewares: [toolResultLimitMiddleware({ maxTokens: 100, offload: {} })],
    });
    const reply = await agent.reply(userMsg("count"));

    const [big, read] = blocksOf(reply, "tool_result");
    expect(big!.output).toMatch(/^1\n2\n3\n/);
    expect(String(big!.output).length).toBeLessThan(1000);
    expect(offloaded).toBe(`${root}/.agentscope/tool-output/call-big.txt`);
    expect(readFileSync(offloaded, "utf8")).toBe(
      `${Array.from({ length: 5000 }, (_, i) => i + 1).join("\n")}\n`,
    );
    expect(read!.state).toBe("success");
    expect(read!.output).toBe("  4998\t4998\n  4999\t4999\n  5000\t5000");
    expect(textOf(reply)).toContain("5000");
    await workspace.close();
  });

  it("leaves a short result alone and writes no file", async () => {
    const workspace = new LocalWorkspace({ root });
    const model = new ScriptedModel([
      { toolCalls: [{ id: "call-small", name: "Bash", input: { command: "echo small" } }] },
      { text: "ok" },
    ]);
    const agent = new Agent({
      name: "a",
      model,
      ...(await workspace.agentOptions({ permission: { mode: "bypass" } })),
      middlewares: [toolResultLimitMiddleware({ maxTokens: 100, offload: {} })],
    });
    const reply = await agent.reply(userMsg("say"));
    expect(blocksOf(reply, "tool_result")[0]!.output).toBe("small\n");
    expect(existsSync(`${root}/.agentscope/tool-output/call-small.txt`)).toBe(false);
    await workspace.close();
  });
});
