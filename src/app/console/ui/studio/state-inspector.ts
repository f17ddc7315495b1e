import type { SessionStateVersion } from "../../../../client/index.js";
import { h } from "../dom.js";
import { jsonDiff } from "./json-diff.js";

type Plain = Record<string, unknown>;

const json = (value: unknown, label: string) =>
  h(
    "pre",
    { class: "studio-json", tabindex: "0", "aria-label": label },
    JSON.stringify(value, null, 2) ?? "undefined",
  );

const part = (title: string, summary: string, value: unknown, open = false) =>
  h(
    "details",
    { class: "studio-tool", "data-part": title, open },
    h(
      "summary",
      { class: "studio-tool-head" },
      h("strong", {}, title),
      " ",
      h("span", { class: "meta" }, summary),
    ),
    json(value, title),
  );

const textOf = (msg: Plain) =>
  ((msg.content as Plain[] | undefined) ?? [])
    .map((b) => (b.type === "text" ? String(b.text) : b.type === "tool_call" ? `[${String(b.name)}]` : ""))
    .join(" ")
    .trim();

/** The parts of one state version: context, summary, the reply in flight, permission, tool and middleware data, tasks. */
function stateParts(state: Plain): HTMLElement {
  const context = (state.context as Plain[] | undefined) ?? [];
  const reply = state.replyContext as Plain | undefined;
  const last = context.at(-1);
  const waiting = ((last?.content as Plain[] | undefined) ?? []).filter(
    (b) =>
      b.type === "tool_call" && (b.state === "asking" || b.state === "pending" || b.state === "submitted"),
  );
  const middleware = (state.middleware as Plain | undefined) ?? {};
  const tasks = (state.tasks as unknown[] | undefined) ?? [];
  return h(
    "div",
    { class: "state-parts" },
    h(
      "p",
      { class: "state-reply", "data-waiting": String(reply?.waitingFor ?? "") },
      reply
        ? reply.waitingFor
          ? `Waiting for: ${String(reply.waitingFor).replace("_", " ")} (reply ${String(reply.replyId)}, iteration ${String(reply.iteration)})`
          : `A reply is in flight: ${String(reply.replyId)}`
        : "No reply in flight.",
    ),
    h(
      "ol",
      { class: "state-context", "aria-label": "Context" },
      ...context.map((msg) =>
        h(
          "li",
          { "data-role": String(msg.role) },
          h("strong", {}, `${String(msg.role)}: `),
          textOf(msg).slice(0, 120) || "(no text)",
        ),
      ),
    ),
    part("context", `${context.length} messages`, context),
    part(
      "summary",
      state.summary ? `${String(state.summary).length} characters` : "none",
      state.summary ?? null,
    ),
    part("pending calls", `${waiting.length}`, waiting, waiting.length > 0),
    part("permission", String((state.permission as Plain | undefined)?.mode ?? ""), state.permission),
    part("middleware data", Object.keys(middleware).join(", ") || "none", middleware),
    part(
      "tool context",
      `${Object.keys((state.toolContext as Plain | undefined) ?? {}).length} keys`,
      state.toolContext ?? {},
    ),
    part("tasks", `${tasks.length}`, tasks),
  );
}

/** One version of the state the inspector can compare: a checkpoint's, one this page read, the newest. */
export interface StateVersionRef {
  key: string;
  label: string;
  version: number;
  kind?: string;
  load(): Promise<Record<string, unknown>>;
}

function changeList(changes: ReturnType<typeof jsonDiff>): HTMLElement {
  return h(
    "ul",
    { class: "state-changes" },
    ...changes.map((c) =>
      h(
        "li",
        { "data-kind": c.kind, "data-path": c.path },
        h("code", {}, c.path),
        ` ${c.kind}`,
        h(
          "span",
          { class: "meta" },
          c.kind === "changed"
            ? `: ${JSON.stringify(c.before)?.slice(0, 80)} → ${JSON.stringify(c.after)?.slice(0, 80)}`
            : `: ${JSON.stringify(c.kind === "added" ? c.after : c.before)?.slice(0, 120)}`,
        ),
      ),
    ),
  );
}

/**
 * The state inspector: the session's agent state as stored (GET /v1/sessions/:id/state), its
 * versions over time (state-versions.ts: the checkpoints, or the versions this page read) and the
 * differences between two of them, read when picked.
 */
export function stateInspector(
  latest: SessionStateVersion,
  versions: readonly StateVersionRef[],
  options: { checkpoints: boolean },
): HTMLElement {
  const options_ = (selected: number) =>
    versions.map((v, i) => h("option", { value: String(i), selected: i === selected }, v.label));
  const from = h("select", { id: "state-from" }, ...options_(Math.max(0, versions.length - 2)));
  const to = h("select", { id: "state-to" }, ...options_(versions.length - 1));
  const diff = h("div", { class: "state-diff", role: "region", "aria-label": "Differences" });
  let ticket = 0;
  const showDiff = async () => {
    const mine = ++ticket;
    const a = versions[Number(from.value)]!;
    const b = versions[Number(to.value)]!;
    diff.dataset.from = a.key;
    diff.dataset.to = b.key;
    try {
      const [before, after] = await Promise.all([a.load(), b.load()]);
      if (mine !== ticket) return;
      const changes = jsonDiff(before, after);
      diff.replaceChildren(
        changes.length === 0
          ? h("p", { class: "note" }, a === b ? "Pick two different versions." : "No differences.")
          : changeList(changes),
      );
    } catch (error) {
      if (mine === ticket)
        diff.replaceChildren(h("p", { class: "error", role: "alert" }, (error as Error).message));
    }
  };
  from.addEventListener("change", () => void showDiff());
  to.addEventListener("change", () => void showDiff());
  void showDiff();
  const pick = (index: number, select: HTMLSelectElement) => () => {
    select.value = String(index);
    void showDiff();
  };
  return h(
    "div",
    { class: "state-inspector" },
    h(
      "p",
      { class: "note" },
      `version ${latest.version} (${new Date(latest.readAt).toLocaleTimeString("en")}) · ${versions.length} version${versions.length === 1 ? "" : "s"} ${options.checkpoints ? "kept" : "read by this page"}`,
    ),
    stateParts(latest.state),
    h(
      "section",
      { class: "studio-section", "aria-label": "Versions over time" },
      h("h3", {}, "Versions over time"),
      options.checkpoints
        ? null
        : h(
            "p",
            { class: "note state-no-checkpoints" },
            "This server keeps no checkpoints, so the store holds only the newest state and these are the versions this page read. Start the service with checkpoints (startServer({ checkpoints: {} }), docs/time-travel.md) to keep a version at every reply end and pause.",
          ),
      h(
        "ol",
        { class: "state-versions" },
        ...versions.map((v, i) =>
          h(
            "li",
            { "data-version": v.key, "data-kind": v.kind },
            h("span", {}, v.label),
            " ",
            h(
              "button",
              {
                type: "button",
                class: "link",
                onclick: pick(i, from),
                "aria-label": `Compare from ${v.label}`,
              },
              "from",
            ),
            " ",
            h(
              "button",
              { type: "button", class: "link", onclick: pick(i, to), "aria-label": `Compare to ${v.label}` },
              "to",
            ),
          ),
        ),
      ),
    ),
    h(
      "section",
      { class: "studio-section", "aria-label": "Compare versions" },
      h("h3", {}, "Compare versions"),
      h("label", { for: "state-from" }, "From "),
      from,
      h("label", { for: "state-to" }, " to "),
      to,
      diff,
    ),
  );
}
