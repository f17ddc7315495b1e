import type { AgentScopeClient } from "../../../client/index.js";
import { h } from "./dom.js";

/**
 * The Memories panel: what the service remembers about the user (GET /v1/memories), each with a
 * Forget button (DELETE /v1/memories/:id). Says so when the service keeps no long-term memory.
 */
export async function renderMemories(target: HTMLElement, client: AgentScopeClient): Promise<void> {
  target.replaceChildren(h("p", { class: "note" }, "Loading…"));
  const list = await client.memories();
  if (!list.enabled) {
    target.replaceChildren(
      h(
        "p",
        { class: "note" },
        "No long-term memory on this server: add `memory: true` to an agent in the service config; see docs/memory.md.",
      ),
    );
    return;
  }
  if (list.memories.length === 0) {
    target.replaceChildren(h("p", { class: "note" }, "Nothing remembered yet."));
    return;
  }
  const items = list.memories.map((memory) => {
    const forget = h(
      "button",
      { type: "button", class: "link", "aria-label": `Forget: ${memory.text}` },
      "Forget",
    );
    const item = h("li", { class: "memory", "data-memory": memory.id }, h("span", {}, memory.text), forget);
    forget.addEventListener("click", () => {
      forget.disabled = true;
      void client.deleteMemory(memory.id).then(
        () => item.remove(),
        (error: unknown) => {
          forget.disabled = false;
          item.append(h("span", { class: "error" }, (error as Error).message));
        },
      );
    });
    return item;
  });
  target.replaceChildren(h("ul", { class: "memories" }, ...items));
}
