import type { AgentScopeClient, SessionInfo } from "../../../client/index.js";
import { CheckpointTree } from "../../../client/index.js";
import type { Msg } from "../../../message/index.js";
import type { CheckpointInfo } from "../../../protocol/time-travel-types.js";
import { h } from "./dom.js";
import { confirmRewind } from "./rewind-dialog.js";

/** What the time-travel controls need of the page (main.ts). */
export interface TimeTravelHost {
  sessionId(): string | undefined;
  /** The conversation shown, and whether a reply runs (the controls hide meanwhile). */
  messages(): readonly Msg[];
  running(): boolean;
  /** Reads the session again (its messages, and a reply under way) after a rewind or an edit. */
  reload(): Promise<void>;
  /** Opens a session the fork made. */
  open(session: SessionInfo): Promise<void>;
  notice(text: string, kind?: "error" | "info"): void;
  /** Draws the conversation again (the controls changed). */
  render(): void;
}

/**
 * The console's time travel (docs/time-travel.md): "Go back to here" and "Fork from here" on each
 * turn, "Edit" on each user message (edit and resend: a new branch), and "‹ 2 / 3 ›" on a user
 * message that has versions. A rewind that changes files asks first (rewind-dialog.ts). On a server
 * without checkpoints the controls do not show.
 */
export class TimeTravel {
  #tree: CheckpointTree | undefined;
  #stamp = 0;
  #ticket = 0;
  #editing: string | undefined;
  #busy = false;

  constructor(
    private readonly client: AgentScopeClient,
    private readonly host: TimeTravelHost,
  ) {}

  /** Reads the session's checkpoints again (after it changed); none: the controls hide. */
  refresh(): void {
    const sessionId = this.host.sessionId();
    const mine = ++this.#ticket;
    if (!sessionId) {
      this.#set(undefined);
      return;
    }
    this.client.checkpoints(sessionId).then(
      (list) => mine === this.#ticket && this.#set(new CheckpointTree(list)),
      () => mine === this.#ticket && this.#set(undefined), // no checkpoints on this server
    );
  }

  #set(tree: CheckpointTree | undefined): void {
    this.#tree = tree;
    this.#stamp += 1;
    this.host.render();
  }

  /** Adds (or brings up to date) the controls of every message under `container`. */
  decorate(container: HTMLElement): void {
    const messages = this.host.messages();
    const running = this.host.running() || this.#busy;
    messages.forEach((msg, index) => {
      const node = container.querySelector<HTMLElement>(`article.msg[data-id="${CSS.escape(msg.id)}"]`);
      if (!node) return;
      const previous = messages[index - 1]?.id;
      const key = `${this.#stamp}:${index}:${previous}:${running}:${this.#editing === msg.id}`;
      if (node.dataset.tt === key) return;
      node.dataset.tt = key;
      node.querySelector(":scope > .tt-bar")?.remove();
      const bar = running || !this.#tree ? undefined : this.#bar(this.#tree, msg, index, previous, messages);
      if (bar) node.append(bar);
    });
  }

  #bar(
    tree: CheckpointTree,
    msg: Msg,
    index: number,
    previous: string | undefined,
    messages: readonly Msg[],
  ): HTMLElement | undefined {
    const bar = h("div", { class: "tt-bar" });
    if (msg.role === "user") {
      const branches = tree.branchesAt(index, previous);
      if (branches) bar.append(this.#switcher(tree, branches.current, branches.tips));
      const before = tree.before(index, previous);
      if (before && this.#editing === msg.id) bar.append(this.#editForm(tree, msg, before));
      else if (before)
        bar.append(
          h(
            "button",
            {
              type: "button",
              class: "link",
              "aria-label": "Edit and resend this message",
              onclick: () => this.#edit(msg.id),
            },
            "Edit",
          ),
        );
    } else {
      const at = tree.after(msg.id, index + 1);
      if (!at) return undefined;
      const last = index === messages.length - 1;
      if (!last)
        bar.append(
          h(
            "button",
            {
              type: "button",
              class: "link",
              "data-rewind": at.id,
              onclick: () => void this.#rewind(tree, at, "Go back to here?", "Go back"),
            },
            "Go back to here",
          ),
        );
      bar.append(
        h(
          "button",
          { type: "button", class: "link", "data-fork": at.id, onclick: () => void this.#fork(at) },
          "Fork from here",
        ),
      );
    }
    return bar.childElementCount > 0 ? bar : undefined;
  }

  #switcher(tree: CheckpointTree, current: number, tips: string[]): HTMLElement {
    const go = (to: number) => () => {
      const target = tree.byId.get(tips[to - 1]!);
      if (target) void this.#rewind(tree, target, `Switch to version ${to} of ${tips.length}?`, "Switch");
    };
    return h(
      "span",
      { class: "tt-branches", role: "group", "aria-label": "Versions of this message" },
      h(
        "button",
        {
          type: "button",
          class: "link",
          "aria-label": "Previous version",
          disabled: current <= 1,
          onclick: go(current - 1),
        },
        "‹",
      ),
      h(
        "span",
        { class: "tt-count", "aria-label": `version ${current} of ${tips.length}` },
        `${current} / ${tips.length}`,
      ),
      h(
        "button",
        {
          type: "button",
          class: "link",
          "aria-label": "Next version",
          disabled: current >= tips.length,
          onclick: go(current + 1),
        },
        "›",
      ),
    );
  }

  #edit(id: string | undefined): void {
    this.#editing = id;
    this.host.render();
  }

  #editForm(tree: CheckpointTree, msg: Msg, before: CheckpointInfo): HTMLElement {
    const text = msg.content.map((block) => (block.type === "text" ? block.text : "")).join("");
    const field = h("textarea", { class: "tt-edit-text", rows: "3", "aria-label": "Edited message" });
    field.value = text;
    const form = h(
      "form",
      { class: "tt-edit" },
      field,
      h(
        "div",
        { class: "test-case-buttons" },
        h("button", { type: "button", onclick: () => this.#edit(undefined) }, "Cancel"),
        h("button", { type: "submit", class: "primary" }, "Send"),
      ),
    );
    form.addEventListener("submit", (event) => {
      event.preventDefault();
      const edited = field.value.trim();
      if (edited) void this.#resend(tree, msg, before, edited);
    });
    queueMicrotask(() => field.focus());
    return form;
  }

  /** Whether the person agrees to a rewind to `target` (asked only when it will change files). */
  async #agreed(
    tree: CheckpointTree,
    target: CheckpointInfo,
    title: string,
    action: string,
  ): Promise<boolean> {
    if (!tree.list.files || target.workspace?.status !== "kept") return true;
    return confirmRewind({ title, action, target, memoryWrites: tree.memoryWritesAfter(target) });
  }

  async #rewind(tree: CheckpointTree, target: CheckpointInfo, title: string, action: string): Promise<void> {
    const sessionId = this.host.sessionId();
    if (!sessionId || !(await this.#agreed(tree, target, title, action))) return;
    await this.#run("going back failed", async () => {
      const answer = await this.client.rewind(sessionId, target.id);
      const files = answer.files
        ? ` (${answer.files.written} files put back, ${answer.files.removed} removed)`
        : "";
      await this.host.reload();
      this.host.notice(`Back at ${answer.checkpoint}${files}. The present is kept as a branch.`, "info");
    });
  }

  async #resend(tree: CheckpointTree, msg: Msg, before: CheckpointInfo, text: string): Promise<void> {
    const sessionId = this.host.sessionId();
    if (!sessionId || !(await this.#agreed(tree, before, "Edit and resend?", "Resend"))) return;
    this.#editing = undefined;
    await this.#run("resending failed", async () => {
      await this.client.editMessage(sessionId, msg.id, text);
      await this.host.reload();
    });
  }

  async #fork(at: CheckpointInfo): Promise<void> {
    const sessionId = this.host.sessionId();
    if (!sessionId) return;
    await this.#run("forking failed", async () => {
      const fork = await this.client.fork(sessionId, at.id);
      await this.host.open(fork.session);
      this.host.notice(
        `Forked from ${fork.origin.checkpoint}: a new session with its own copy of the files.`,
        "info",
      );
    });
  }

  async #run(what: string, action: () => Promise<void>): Promise<void> {
    this.#busy = true;
    this.host.render();
    try {
      await action();
    } catch (error) {
      this.host.notice(`${what}: ${(error as Error).message}`);
    } finally {
      this.#busy = false;
      this.refresh();
    }
  }
}
