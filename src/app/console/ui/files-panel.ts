import type { AgentScopeClient, WorkspaceEntry } from "../../../client/index.js";
import { h } from "./dom.js";
import { filePreview } from "./file-preview.js";
import { saveBlob } from "./save-blob.js";

const nameOf = (path: string) => path.slice(path.lastIndexOf("/") + 1);
const parentOf = (path: string) => (path.includes("/") ? path.slice(0, path.lastIndexOf("/")) : ".");

function sizeText(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KB`;
  return `${(bytes / 1024 / 1024).toFixed(1)} MB`;
}

/**
 * The Files panel: the current session's workspace (GET /v1/sessions/:id/workspace/files), one
 * directory at a time (folders open on click, "Up" goes back), a Preview (text or image, file-preview.ts)
 * and a Download button per file. A download
 * fetches the file with the Authorization header and saves it through a blob: URL, since the token
 * never goes in a URL. A service without workspaces (404) gets a note instead of a list.
 */
export class FilesPanel {
  readonly #target: HTMLElement;
  readonly #client: AgentScopeClient;
  #sessionId: string | undefined;
  #dir = ".";
  #loading = 0;

  constructor(target: HTMLElement, client: AgentScopeClient) {
    this.#target = target;
    this.#client = client;
  }

  /** Follows the current session (undefined = a new chat); a different session starts at its root. */
  setSession(sessionId: string | undefined): void {
    if (sessionId !== this.#sessionId) this.#dir = ".";
    this.#sessionId = sessionId;
    if (!this.#target.hidden) void this.refresh();
  }

  /** Lists the current directory again (after a reply, the agent may have written files). */
  async refresh(): Promise<void> {
    const sessionId = this.#sessionId;
    const dir = this.#dir;
    const ticket = ++this.#loading;
    if (!sessionId) {
      this.#show(h("p", { class: "note" }, "Start a chat to see its workspace."));
      return;
    }
    let entries: WorkspaceEntry[];
    let truncated = false;
    try {
      ({ entries, truncated } = await this.#client.workspaceFiles(sessionId, { path: dir }));
    } catch (error) {
      if (ticket !== this.#loading) return;
      const status = (error as { status?: number }).status;
      if (status === 404 && dir !== ".") return this.#open(".");
      this.#show(
        h(
          "p",
          { class: "note" },
          status === 404
            ? "No workspace files on this server: start it with `workspaces` (on by default in `agentscope serve`; startServer({ workspaces })); see docs/workspaces.md."
            : `Cannot list: ${(error as Error).message}`,
        ),
      );
      return;
    }
    if (ticket !== this.#loading) return;
    const rows = entries.map((entry) => this.#row(sessionId, entry));
    this.#show(
      h("p", { class: "workspace-dir" }, dir === "." ? "/" : `/${dir}`),
      dir !== "." &&
        h(
          "button",
          { type: "button", class: "link", onclick: () => void this.#open(parentOf(dir)) },
          "↑ Up to the parent folder",
        ),
      rows.length > 0
        ? h("ul", { class: "workspace-files", "aria-label": "Files" }, ...rows)
        : h("p", { class: "note" }, "No files yet."),
      truncated && h("p", { class: "note" }, "Only the first 5,000 entries are shown."),
    );
  }

  #open(dir: string): Promise<void> {
    this.#dir = dir;
    return this.refresh();
  }

  #show(...children: Array<Node | false>): void {
    this.#target.replaceChildren(...children.filter((c): c is Node => c !== false));
  }

  #row(sessionId: string, entry: WorkspaceEntry): HTMLLIElement {
    const name = nameOf(entry.path);
    if (entry.type === "directory")
      return h(
        "li",
        { "data-path": entry.path, "data-type": "directory" },
        h(
          "button",
          {
            type: "button",
            class: "link folder",
            "aria-label": `Open folder ${name}`,
            onclick: () => void this.#open(entry.path),
          },
          `${name}/`,
        ),
      );
    const download = h(
      "button",
      { type: "button", class: "link", "aria-label": `Download ${name}` },
      "Download",
    );
    const preview = h(
      "button",
      { type: "button", class: "link", "aria-label": `Preview ${name}`, "aria-expanded": "false" },
      "Preview",
    );
    const item = h(
      "li",
      { "data-path": entry.path, "data-type": entry.type },
      h("span", { class: "file-name" }, name),
      h("span", { class: "meta" }, entry.type === "file" ? sizeText(entry.size) : entry.type),
      entry.type === "file" && preview,
      entry.type === "file" && download,
    );
    preview.addEventListener("click", () => void this.#togglePreview(sessionId, entry.path, item, preview));
    download.addEventListener("click", () => {
      download.disabled = true;
      void this.#client.downloadWorkspaceFile(sessionId, entry.path).then(
        (blob) => {
          download.disabled = false;
          saveBlob(blob, name);
        },
        (error: unknown) => {
          download.disabled = false;
          item.append(h("span", { class: "error", role: "alert" }, (error as Error).message));
        },
      );
    });
    return item;
  }

  /** Shows the file's preview under its row (fetched with the token), or hides it again. */
  async #togglePreview(sessionId: string, path: string, item: HTMLElement, button: HTMLElement) {
    const shown = item.querySelector(".file-preview");
    button.setAttribute("aria-expanded", String(!shown));
    if (shown) return shown.remove();
    try {
      item.append(await filePreview(await this.#client.downloadWorkspaceFile(sessionId, path), nameOf(path)));
    } catch (error) {
      item.append(h("span", { class: "error file-preview", role: "alert" }, (error as Error).message));
    }
  }
}
