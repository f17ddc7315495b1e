import { type AgentScopeClient, ServiceError, type SessionInfo } from "../../../client/index.js";
import { h } from "./dom.js";
import { nestSessions } from "./session-tree.js";

const TITLES_KEY = "agentscope.titles";

/** Titles the user gave sessions in this browser (only when the service has no rename route). */
function localTitles(): Record<string, string> {
  try {
    return JSON.parse(localStorage.getItem(TITLES_KEY) ?? "{}") as Record<string, string>;
  } catch {
    return {};
  }
}

/** A sub-agent's session goes by the label its spawn gave it (unless renamed in this browser). */
export function titleOf(session: SessionInfo): string {
  return (
    localTitles()[session.sessionId] ??
    session.parent?.label ??
    session.title ??
    `Chat ${session.createdAt.slice(0, 16).replace("T", " ")}`
  );
}

/**
 * Renames on the service and takes the title it kept (so every browser shows it); only a service
 * without the rename route (404/405) leaves the title in this browser. Other refusals (a title
 * over 200 characters) throw. Returns the title now shown.
 */
export async function renameSession(
  client: AgentScopeClient,
  session: SessionInfo,
  title: string,
): Promise<string> {
  const titles = localTitles();
  try {
    const renamed = await client.renameSession(session.sessionId, title);
    if (renamed.title !== undefined) session.title = renamed.title;
    delete titles[session.sessionId];
  } catch (error) {
    if (!(error instanceof ServiceError && (error.status === 404 || error.status === 405))) throw error;
    titles[session.sessionId] = title;
  }
  localStorage.setItem(TITLES_KEY, JSON.stringify(titles));
  return titleOf(session);
}

export interface SessionListActions {
  open(session: SessionInfo): void;
  rename(session: SessionInfo, title: string): void;
  remove(session: SessionInfo): void;
}

/**
 * The sidebar's list: sessions matching `query` (title or id), each a button to open it plus
 * Rename and Delete buttons (reachable by Tab; delete asks once more before it deletes). A
 * sub-agent's session (`parent`) follows its parent's row, indented, saying whose it is.
 */
export function sessionList(
  sessions: SessionInfo[],
  currentId: string | undefined,
  query: string,
  actions: SessionListActions,
): HTMLElement[] {
  const needle = query.trim().toLowerCase();
  const shown = sessions.filter(
    (s) =>
      needle === "" ||
      titleOf(s).toLowerCase().includes(needle) ||
      s.sessionId.toLowerCase().includes(needle),
  );
  if (shown.length === 0)
    return [h("li", { class: "session-none" }, needle ? "No chat matches." : "No chats yet.")];
  return nestSessions(shown).map(({ session, depth, parent }) => {
    const title = titleOf(session);
    const current = session.sessionId === currentId;
    const item = h("li", {
      class: `session${current ? " current" : ""}${session.parent ? " subagent-session" : ""}`,
      "data-id": session.sessionId,
      "data-parent": session.parent?.sessionId,
      "data-depth": depth > 0 ? Math.min(depth, 4) : undefined,
    });
    const under = session.parent ? (parent ? titleOf(parent) : "another chat") : undefined;
    const pick = h(
      "button",
      { type: "button", class: "session-pick", "aria-current": current ? "page" : undefined },
      h("span", { class: "session-title" }, title),
      h(
        "span",
        { class: "session-date" },
        under ? `Sub-agent of ${under}` : new Date(session.createdAt).toLocaleString(),
      ),
    );
    pick.addEventListener("click", () => actions.open(session));
    const rename = h(
      "button",
      { type: "button", class: "session-action", "aria-label": `Rename ${title}` },
      "✎",
    );
    rename.addEventListener("click", () => {
      const input = h("input", { class: "session-rename", "aria-label": "New title", value: title });
      const form = h("form", { class: "session-rename-form" }, input);
      form.addEventListener("submit", (event) => {
        event.preventDefault();
        const next = input.value.trim();
        if (next) actions.rename(session, next);
      });
      input.addEventListener("keydown", (event) => {
        if (event.key === "Escape") item.replaceWith(...sessionList([session], currentId, "", actions));
      });
      item.replaceChildren(form);
      input.focus();
      input.select();
    });
    const remove = h(
      "button",
      { type: "button", class: "session-action session-delete", "aria-label": `Delete ${title}` },
      "✕",
    );
    remove.addEventListener("click", () => {
      if (remove.dataset.armed === "1") {
        actions.remove(session);
        return;
      }
      remove.dataset.armed = "1";
      remove.textContent = "Delete?";
      remove.setAttribute("aria-label", `Press again to delete ${title}`);
    });
    remove.addEventListener("blur", () => {
      remove.dataset.armed = "";
      remove.textContent = "✕";
      remove.setAttribute("aria-label", `Delete ${title}`);
    });
    item.append(pick, rename, remove);
    return item;
  });
}
