import type { AgentScopeClient, IndexJob, KnowledgeBaseInfo } from "../../../client/index.js";
import { h } from "./dom.js";

const STAGES: Record<string, string> = {
  read: "reading",
  chunk: "splitting",
  embed: "embedding",
  store: "storing",
  done: "done",
};

/** One line for where an indexing job stands: "embedding 3/8", "done: 12 chunks", "failed: …". */
export function jobText(job: IndexJob): string {
  if (job.status === "done") return `done: ${job.chunks ?? 0} chunks`;
  if (job.status === "failed") return `failed: ${job.error ?? "unknown error"}`;
  if (job.status === "queued") return "queued";
  const progress = job.progress;
  return progress
    ? `${STAGES[progress.stage] ?? progress.stage} ${progress.done}/${progress.total}`
    : "indexing";
}

const errorText = (error: unknown) => (error as Error).message;

/**
 * The Knowledge panel: the user's knowledge bases (GET /v1/knowledge-bases), a form to create one,
 * and for the base picked its documents, an upload with each file's indexing progress (the job
 * polled until done or failed) and a search showing the passages found with their citations. A
 * service without knowledge bases (404) gets a note instead.
 */
export class KnowledgePanel {
  readonly #target: HTMLElement;
  readonly #client: AgentScopeClient;
  #selected: string | undefined;
  #bases: KnowledgeBaseInfo[] = [];
  /** The uploads of this page and their progress (kept when the panel is drawn again). */
  readonly #jobs = h("ul", { class: "kb-jobs", "aria-label": "Uploads", "aria-live": "polite" });

  constructor(target: HTMLElement, client: AgentScopeClient) {
    this.#target = target;
    this.#client = client;
  }

  /** Lists the bases again (and the picked base's documents). */
  async refresh(): Promise<void> {
    try {
      this.#bases = await this.#client.knowledge.list();
    } catch (error) {
      const status = (error as { status?: number }).status;
      this.#target.replaceChildren(
        h(
          "p",
          { class: "note" },
          status === 404
            ? "No knowledge bases on this server: add `knowledge` to the service config (and `knowledge` to an agent to search them); see docs/rag.md."
            : `Cannot list: ${errorText(error)}`,
        ),
      );
      return;
    }
    if (!this.#bases.some((base) => base.name === this.#selected)) this.#selected = this.#bases[0]?.name;
    const selected = this.#selected;
    this.#target.replaceChildren(
      this.#baseList(),
      this.#createForm(),
      ...(selected ? [await this.#basePart(selected)] : []),
    );
  }

  #baseList(): HTMLElement {
    if (this.#bases.length === 0)
      return h("p", { class: "note" }, "No knowledge bases yet: create one below.");
    return h(
      "ul",
      { class: "kb-bases", "aria-label": "Knowledge bases" },
      ...this.#bases.map((base) =>
        h(
          "li",
          { "data-base": base.name },
          h(
            "button",
            {
              type: "button",
              class: "link",
              "aria-pressed": String(base.name === this.#selected),
              onclick: () => {
                this.#selected = base.name;
                void this.refresh();
              },
            },
            base.name,
          ),
          base.description ? h("span", { class: "meta" }, base.description) : undefined,
        ),
      ),
    );
  }

  #createForm(): HTMLElement {
    const name = h("input", {
      id: "kb-new-name",
      required: true,
      pattern: "[\\w.\\-]{1,64}",
      placeholder: "New base name",
      "aria-label": "New knowledge base name (letters, digits, _ . -)",
    });
    const problem = h("span", { class: "error", role: "status" });
    const form = h("form", { class: "kb-create" }, name, h("button", { type: "submit" }, "Create"), problem);
    form.addEventListener("submit", (event) => {
      event.preventDefault();
      void this.#client.knowledge.create(name.value.trim()).then(
        (base) => {
          this.#selected = base.name;
          return this.refresh();
        },
        (error: unknown) => {
          problem.textContent = errorText(error);
        },
      );
    });
    return form;
  }

  async #basePart(base: string): Promise<HTMLElement> {
    const documents = await this.#client.knowledge.documents(base).catch(() => []);
    const files = h("input", { type: "file", multiple: true, "aria-label": `Upload documents to ${base}` });
    const jobs = this.#jobs;
    files.addEventListener("change", () => {
      const chosen = [...(files.files ?? [])];
      files.value = "";
      if (chosen.length > 0) void this.#upload(base, chosen, jobs);
    });
    const query = h("input", {
      type: "search",
      "aria-label": `Search ${base}`,
      placeholder: "Search this base",
    });
    const hits = h("ol", { class: "kb-hits", "aria-label": "Passages found" });
    const search = h(
      "form",
      { class: "kb-search", role: "search" },
      query,
      h("button", { type: "submit" }, "Search"),
    );
    search.addEventListener("submit", (event) => {
      event.preventDefault();
      const text = query.value.trim();
      if (text === "") return;
      hits.replaceChildren(h("li", { class: "note" }, "Searching…"));
      void this.#client.knowledge.search(base, text, { topK: 5 }).then(
        (found) =>
          hits.replaceChildren(
            ...(found.length === 0
              ? [h("li", { class: "note" }, "Nothing found.")]
              : found.map((hit) =>
                  h(
                    "li",
                    { class: "kb-hit" },
                    h("span", { class: "kb-citation" }, hit.citation),
                    h("span", { class: "kb-text" }, hit.text.slice(0, 400)),
                  ),
                )),
          ),
        (error: unknown) => hits.replaceChildren(h("li", { class: "error" }, errorText(error))),
      );
    });
    return h(
      "section",
      { class: "kb-base", "aria-label": `Knowledge base ${base}` },
      h("h3", {}, base),
      documents.length === 0
        ? h("p", { class: "note" }, "No documents yet.")
        : h(
            "ul",
            { class: "kb-documents", "aria-label": "Documents" },
            ...documents.map((doc) =>
              h(
                "li",
                { "data-document": doc.documentId },
                h("span", { class: "file-name" }, doc.source),
                h("span", { class: "meta" }, `${doc.chunkCount} chunks`),
              ),
            ),
          ),
      h("label", { class: "kb-upload" }, "Upload documents", files),
      jobs,
      search,
      hits,
    );
  }

  /** Uploads the files, then follows each job, showing its progress, until it is done or failed. */
  async #upload(base: string, files: File[], list: HTMLElement): Promise<void> {
    const rows = files.map((file) => h("li", { "data-file": file.name }, `${file.name}: uploading…`));
    list.append(...rows);
    let started: IndexJob[];
    try {
      started = await this.#client.knowledge.upload(base, files);
    } catch (error) {
      for (const row of rows) row.textContent = `${row.dataset.file}: ${errorText(error)}`;
      return;
    }
    await Promise.all(
      started.map(async (job, index) => {
        const row = rows[index];
        if (!row) return;
        let current = job;
        row.dataset.status = current.status;
        row.textContent = `${files[index]?.name}: ${jobText(current)}`;
        while (current.status !== "done" && current.status !== "failed") {
          await new Promise((resolve) => setTimeout(resolve, 250));
          current = await this.#client.knowledge.job(base, job.id);
          row.dataset.status = current.status;
          row.textContent = `${files[index]?.name}: ${jobText(current)}`;
        }
      }),
    ).catch(() => undefined);
    if (this.#selected === base && this.#target.isConnected) await this.refresh();
  }
}
