// The page of `agentscope replay --open <trace file>` (src/app/cli/replay-open.ts): the studio's
// trace view of a trace file's events, which the command serves at /trace/events. The view's code
// is the studio's own bundle, loaded as the chat page loads it.
import type { AgentEvent } from "../../../../event/types.js";

const STUDIO_URL = "/console/studio.js";

type StudioModule = { mountTrace(target: HTMLElement, events: readonly AgentEvent[]): void };

async function showTrace(): Promise<void> {
  const target = document.getElementById("trace");
  if (!target) throw new Error("the trace page has no #trace");
  try {
    const [module, response] = await Promise.all([
      import(STUDIO_URL) as Promise<StudioModule>,
      fetch("/trace/events"),
    ]);
    if (!response.ok) throw new Error(`the trace's events: HTTP ${response.status}`);
    module.mountTrace(target, (await response.json()) as AgentEvent[]);
    document.body.dataset.phase = "ready";
  } catch (error) {
    const alert = document.createElement("p");
    alert.className = "error";
    alert.setAttribute("role", "alert");
    alert.textContent = `Cannot show the trace: ${(error as Error).message}`;
    target.replaceChildren(alert);
  }
}

void showTrace();
