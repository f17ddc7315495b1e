import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, expect, it } from "vitest";
import { demoAgentConfig, prepareDemoWorkspace } from "../../src/app/demo/demo-agent.js";
import { memoryBackend } from "../../src/app/server/backend/memory-backend.js";
import { buildAgents } from "../../src/app/server/config/build-agents.js";
import { ServiceRuntime } from "../../src/app/server/runtime/service-runtime.js";
import { userMsg } from "../../src/message/index.js";

const dir = mkdtempSync(join(tmpdir(), "agentscope-demo-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

it("the demo agent serves every session: lists at once, asks before saving, then answers", async () => {
  prepareDemoWorkspace(dir);
  const runtime = new ServiceRuntime({
    backend: memoryBackend(),
    agents: await buildAgents([demoAgentConfig(dir)]),
  });
  try {
    for (const confirmed of [false, true]) {
      const { sessionId } = await runtime.createSession("local");
      const collect = async (run: Promise<{ after: number; done: Promise<void> }>) => {
        const handle = await run;
        const items = await runtime.follow("local", sessionId, {
          after: handle.after,
          signal: new AbortController().signal,
          until: handle.done,
        });
        const events = [];
        for await (const item of items) if (item.kind === "event") events.push(item.event);
        return events;
      };
      const first = await collect(
        runtime.startReply("local", sessionId, [userMsg("Summarise my workspace")]),
      );
      expect(first.filter((e) => e.type === "TOOL_RESULT_END").map((e) => e.state)).toEqual(["success"]);
      const ask = first.at(-1);
      expect(ask?.type).toBe("REQUIRE_USER_CONFIRM");
      const call = ask?.type === "REQUIRE_USER_CONFIRM" ? ask.toolCalls[0]! : undefined;
      expect(call?.name).toBe("save_note");
      const rest = await collect(runtime.confirm("local", sessionId, [{ toolCallId: call!.id, confirmed }]));
      expect(rest.at(-1)).toMatchObject({ type: "REPLY_END", finishedReason: "completed" });
      expect(existsSync(join(dir, "summary.md"))).toBe(confirmed);
    }
    expect(readFileSync(join(dir, "summary.md"), "utf8")).toContain("todo.md");
  } finally {
    await runtime.close();
  }
});
