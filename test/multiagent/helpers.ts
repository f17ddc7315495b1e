import { z } from "zod";
import { Agent } from "../../src/agent/index.js";
import type { AgentEvent, RequireUserConfirmEvent } from "../../src/event/index.js";
import type { PermissionContext } from "../../src/permission/index.js";
import { ScriptedModel, type ScriptedStep } from "../../src/testing/index.js";
import { functionTool, type Tool } from "../../src/tool/index.js";

export async function collect(stream: AsyncIterable<AgentEvent>): Promise<AgentEvent[]> {
  const events: AgentEvent[] = [];
  for await (const event of stream) events.push(event);
  return events;
}

/**
 * A promise the test opens: a sub-agent's `hold` tool waits on it, so the sub-agent cannot end
 * before; `reached` settles once the tool runs.
 */
export function gate() {
  let open!: () => void;
  let entered!: () => void;
  const opened = new Promise<void>((resolve) => {
    open = resolve;
  });
  const reached = new Promise<void>((resolve) => {
    entered = resolve;
  });
  const hold = functionTool({
    name: "hold",
    description: "Waits",
    input: z.object({}),
    readOnly: true,
    pathsOf: () => [],
    execute: async () => {
      entered();
      await opened;
      return "released";
    },
  });
  return { open, reached, hold };
}

/** A tool that writes (so the default permission mode asks) and logs each run. */
export function noteTool(log: string[]): Tool {
  return functionTool({
    name: "write_note",
    description: "Writes a note",
    input: z.object({ text: z.string() }),
    execute: ({ text }) => {
      log.push(text);
      return `wrote ${text}`;
    },
  });
}

export function scriptedAgent(
  name: string,
  steps: ScriptedStep[],
  tools: Tool[] = [],
  permission?: Partial<PermissionContext>,
): Agent {
  return new Agent({
    name,
    model: new ScriptedModel(steps, { name: `${name}-model` }),
    toolkit: tools,
    ...(permission ? { permission } : {}),
  });
}

export function confirmOf(events: AgentEvent[]): RequireUserConfirmEvent {
  const event = events.find((e): e is RequireUserConfirmEvent => e.type === "REQUIRE_USER_CONFIRM");
  if (!event) throw new Error("no REQUIRE_USER_CONFIRM in the stream");
  return event;
}
