// The studio's pages, bundled apart from the chat (/console/studio.js) and loaded on first open by
// studio-loader.ts, so the chat page stays light. It gets the page's client and event log from the
// host and imports only types from the client.
import type { AgentScopeClient, SessionStateVersion } from "../../../../client/index.js";
import type { AgentEvent } from "../../../../event/types.js";
import { h } from "../dom.js";
import { agentInspector } from "./agent-inspector.js";
import { stateInspector } from "./state-inspector.js";
import { toolPlayground } from "./tool-playground.js";
import { traceWaterfall } from "./trace-waterfall.js";

/** What the chat page lends the studio. */
export interface StudioHost {
  client: AgentScopeClient;
  /** The open session (undefined on a new chat). */
  sessionId(): string | undefined;
  /** The session's event log up to now (read once, then what the page streamed). */
  events(): Promise<AgentEvent[]>;
}

export type StudioTab = "agent" | "tools" | "state" | "trace";

const TABS: Array<{ id: StudioTab; name: string }> = [
  { id: "agent", name: "Agent" },
  { id: "tools", name: "Tools" },
  { id: "state", name: "State" },
  { id: "trace", name: "Trace" },
];

/** The studio drawn into `target`: a tab list and the open tab's page. */
export class Studio {
  readonly #target: HTMLElement;
  readonly #host: StudioHost;
  readonly #body = h("div", { class: "studio-body", role: "tabpanel", id: "studio-tabpanel", tabindex: "0" });
  readonly #tabs: HTMLButtonElement[];
  #tab: StudioTab = "agent";
  /** The state versions read per session, oldest first (the store keeps only the newest). */
  readonly #versions = new Map<string, SessionStateVersion[]>();
  #ticket = 0;

  constructor(target: HTMLElement, host: StudioHost) {
    this.#target = target;
    this.#host = host;
    this.#tabs = TABS.map((tab) =>
      h(
        "button",
        {
          type: "button",
          role: "tab",
          id: `studio-tab-${tab.id}`,
          "aria-controls": "studio-tabpanel",
          "data-tab": tab.id,
          onclick: () => this.show(tab.id),
        },
        tab.name,
      ),
    );
    const list = h(
      "div",
      { class: "studio-tabs", role: "tablist", "aria-label": "Studio pages" },
      ...this.#tabs,
    );
    list.addEventListener("keydown", (event) => {
      const step = event.key === "ArrowRight" ? 1 : event.key === "ArrowLeft" ? -1 : 0;
      if (step === 0) return;
      const at = TABS.findIndex((tab) => tab.id === this.#tab);
      const next = TABS[(at + step + TABS.length) % TABS.length]!;
      this.show(next.id);
      this.#tabs[TABS.indexOf(next)]?.focus();
    });
    target.replaceChildren(list, this.#body);
  }

  /** Opens a tab and draws it. */
  show(tab: StudioTab): void {
    this.#tab = tab;
    for (const button of this.#tabs) {
      const selected = button.dataset.tab === tab;
      button.setAttribute("aria-selected", String(selected));
      button.tabIndex = selected ? 0 : -1;
    }
    this.#body.setAttribute("aria-labelledby", `studio-tab-${tab}`);
    void this.refresh();
  }

  /** Draws the open tab again (the session changed, a reply ended). */
  async refresh(): Promise<void> {
    const ticket = ++this.#ticket;
    const sessionId = this.#host.sessionId();
    if (!sessionId) {
      this.#body.replaceChildren(
        h("p", { class: "note" }, "Start a chat (or open one) to inspect its agent and trace."),
      );
      return;
    }
    try {
      const client = this.#host.client;
      const page =
        this.#tab === "agent"
          ? agentInspector(await client.inspectAgent(sessionId))
          : this.#tab === "tools"
            ? toolPlayground(client, sessionId, await client.inspectAgent(sessionId))
            : this.#tab === "state"
              ? stateInspector(remember(this.#versions, sessionId, await client.sessionState(sessionId)))
              : traceWaterfall(await this.#host.events());
      if (ticket === this.#ticket && this.#target.isConnected) this.#body.replaceChildren(page);
    } catch (error) {
      if (ticket === this.#ticket)
        this.#body.replaceChildren(
          h("p", { class: "error", role: "alert" }, `Cannot load: ${(error as Error).message}`),
        );
    }
  }
}

/** Keeps a newly read version of a session's state (at most the last 30); returns them all. */
function remember(
  versions: Map<string, SessionStateVersion[]>,
  sessionId: string,
  read: SessionStateVersion,
) {
  const list = versions.get(sessionId) ?? [];
  if (list.at(-1)?.version !== read.version) list.push(read);
  if (list.length > 30) list.shift();
  versions.set(sessionId, list);
  return list;
}

export function mountStudio(target: HTMLElement, host: StudioHost): Studio {
  const studio = new Studio(target, host);
  studio.show("agent");
  return studio;
}
