import { mkdtempSync, realpathSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { PermissionContext, PermissionMode } from "../../../src/permission/index.js";
import type { Tool, ToolContext } from "../../../src/tool/index.js";

export function tempDir(): { dir: string; cleanup: () => void } {
  const dir = realpathSync(mkdtempSync(join(tmpdir(), "agentscope-builtin-")));
  return { dir, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

export function permission(dir: string, mode: PermissionMode = "default"): PermissionContext {
  return { mode, rules: [], workingDirectories: [dir] };
}

export function toolContext(dir: string, overrides: Partial<ToolContext> = {}): ToolContext {
  return {
    signal: new AbortController().signal,
    sessionId: "s1",
    replyId: "r1",
    toolCallId: "c1",
    state: {},
    permission: permission(dir),
    requestStop() {},
    ...overrides,
  };
}

/** Runs a tool the way the agent does: parse the arguments, call, and collect streamed chunks. */
export async function run(tool: Tool, args: unknown, ctx: ToolContext): Promise<unknown> {
  const result = await tool.call(tool.parse(args), ctx);
  if (result && typeof result === "object" && Symbol.asyncIterator in result) {
    let text = "";
    for await (const chunk of result as AsyncIterable<unknown>)
      text += typeof chunk === "string" ? chunk : "";
    return text;
  }
  return result;
}
