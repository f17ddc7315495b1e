// The studio's pages, bundled apart from the chat (/console/studio.js) and loaded on first open by
// studio-loader.ts, so the chat page stays light. It gets the page's client and event log from the
// host and imports only types from the client.
import type { AgentScopeClient } from "../../../../client/index.js";
import type { AgentEvent } from "../../../../event/types.js";
import { h } from "../dom.js";
import { type StudioPage, type StudioTab, studioPages } from "./studio-pages.js";
import { traceWaterfall } from "./trace-waterfall.js";

export type { StudioTab } from "./studio-pages.js";

/** What the chat page lends the studio. */
export interface StudioHost {
  client: AgentScopeClient;
  /** The open session (undefined on a new chat). */
  sessionId(): string | undefined;
  /** The session's event log up to now (read once, then what the page streamed). */
  events(): Promise<AgentEvent[]>;
}

/** Keys that move through the navigation: both axes (it is a column on a desktop, a row on a phone). */
const STEPS: Record<string, (at: number, count: number) => number> = {
  ArrowDown: (at, count) => (at + 1) % count,
  ArrowRight: (at, count) => (at + 1) % count,
  ArrowUp: (at, count) => (at - 1 + count) % count,
  ArrowLeft: (at, count) => (at - 1 + count) % count,
  Home: () => 0,
  End: (_at, count) => count - 1,
};

/** The studio drawn into `target`: one navigation (a tab list) beside the open page. */
export class Studio {
  readonly #target: HTMLElement;
  readonly #host: StudioHost;
  readonly #pages: StudioPage[];
  readonly #body = h("div", { class: "studio-body", role: "tabpanel", id: "studio-tabpanel", tabindex: "0" });
  readonly #tabs: HTMLButtonElement[];
  #tab: StudioTab = "agent";
  #ticket = 0;

  constructor(target: HTMLElement, host: StudioHost) {
    this.#target = target;
    this.#host = host;
    this.#pages = studioPages(host.client);
    this.#tabs = this.#pages.map((page) =>
      h(
        "button",
        {
          type: "button",
          role: "tab",
          id: `studio-tab-${page.id}`,
          "aria-controls": "studio-tabpanel",
          "data-tab": page.id,
          onclick: () => this.show(page.id),
        },
        page.name,
      ),
    );
    const list = h(
      "div",
      { class: "studio-tabs", role: "tablist", "aria-label": "Studio pages", "aria-orientation": "vertical" },
      ...this.#tabs,
    );
    list.addEventListener("keydown", (event) => {
      const step = STEPS[event.key];
      if (!step) return;
      event.preventDefault();
      const at = this.#pages.findIndex((page) => page.id === this.#tab);
      const next = step(at, this.#pages.length);
      this.show(this.#pages[next]!.id);
      this.#tabs[next]?.focus();
    });
    target.replaceChildren(h("div", { class: "studio-layout" }, list, this.#body));
  }

  /** Opens a page and draws it. */
  show(tab: StudioTab): void {
    this.#tab = tab;
    for (const button of this.#tabs) {
      const selected = button.dataset.tab === tab;
      button.setAttribute("aria-selected", String(selected));
      button.tabIndex = selected ? 0 : -1;
    }
    this.#body.setAttribute("aria-labelledby", `studio-tab-${tab}`);
    this.#body.dataset.page = tab;
    void this.refresh();
  }

  /** Draws the open page again (the session changed, a reply ended). */
  async refresh(): Promise<void> {
    const ticket = ++this.#ticket;
    const sessionId = this.#host.sessionId();
    const page = this.#pages.find((p) => p.id === this.#tab)!;
    if (page.session && !sessionId) {
      this.#body.replaceChildren(
        h("p", { class: "note" }, "Start a chat (or open one) to inspect its agent and trace."),
      );
      return;
    }
    try {
      const drawn = await page.draw({
        client: this.#host.client,
        sessionId,
        events: () => this.#host.events(),
      });
      if (ticket === this.#ticket && this.#target.isConnected) this.#body.replaceChildren(drawn);
    } catch (error) {
      if (ticket === this.#ticket)
        this.#body.replaceChildren(
          h("p", { class: "error", role: "alert" }, `Cannot load: ${(error as Error).message}`),
        );
    }
  }
}

export function mountStudio(target: HTMLElement, host: StudioHost): Studio {
  const studio = new Studio(target, host);
  studio.show("agent");
  return studio;
}

/** The trace view alone, for a trace file (`agentscope replay --open`, trace-file-page.ts). */
export function mountTrace(target: HTMLElement, events: readonly AgentEvent[]): void {
  target.replaceChildren(traceWaterfall(events));
}
