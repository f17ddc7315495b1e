import { expect, it } from "vitest";
import { z } from "zod";
import { Agent } from "../../../src/agent/index.js";
import type { AgentEvent, RequireUserConfirmEvent } from "../../../src/event/index.js";
import { userMsg } from "../../../src/message/index.js";
import { ScriptedModel } from "../../../src/testing/index.js";
import { functionTool, type ToolChangePreview } from "../../../src/tool/index.js";

/** The ask entries of one reply of an agent whose model calls `retitle` with `input`. */
async function askFor(
  preview: ((input: { title: string }) => unknown) | undefined,
  input: unknown = { title: "x" },
) {
  const calls: string[] = [];
  const tool = functionTool({
    name: "retitle",
    description: "Changes the title",
    input: z.object({ title: z.string() }),
    ...(preview ? { preview: preview as (input: { title: string }) => ToolChangePreview | undefined } : {}),
    execute: () => {
      calls.push("ran");
      return "done";
    },
  });
  const agent = new Agent({
    name: "a",
    model: new ScriptedModel([{ toolCalls: [{ name: "retitle", input }] }]),
    toolkit: [tool],
  });
  const events: AgentEvent[] = [];
  for await (const event of agent.replyStream(userMsg("go"))) events.push(event);
  const ask = events.find((e): e is RequireUserConfirmEvent => e.type === "REQUIRE_USER_CONFIRM");
  expect(calls).toEqual([]);
  return ask?.toolCalls[0];
}

it("puts a tool's declared preview in its ask, from the parsed arguments", async () => {
  const entry = await askFor(({ title }) => ({ path: "notes.md", before: "# Old", after: `# ${title}` }), {
    title: "New",
  });
  expect(entry?.preview).toEqual({ path: "notes.md", before: "# Old", after: "# New" });
  const write = await askFor(() => ({ path: "t.txt", after: "whole file" }));
  expect(write?.preview).toEqual({ path: "t.txt", after: "whole file" });
});

it("leaves the ask without a preview when the tool declares none, the preview throws or is malformed", async () => {
  expect(await askFor(undefined)).not.toHaveProperty("preview");
  const throwing = await askFor(() => {
    throw new Error("boom");
  });
  expect(throwing?.state).toBe("asking");
  expect(throwing).not.toHaveProperty("preview");
  for (const bad of [
    { path: 1, after: "x" },
    { path: "a" },
    { path: "a", after: "x", before: 3 },
    "a.md",
    null,
  ])
    expect(await askFor(() => bad)).not.toHaveProperty("preview");
  // Only the declared fields go out (nothing else a tool returns leaks into the event).
  expect((await askFor(() => ({ path: "a", after: "x", secret: "s" })))?.preview).toEqual({
    path: "a",
    after: "x",
  });
});
