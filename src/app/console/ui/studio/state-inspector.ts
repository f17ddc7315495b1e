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

/**
 * The state inspector: the session's agent state as stored (GET /v1/sessions/:id/state), the
 * versions this page has read (the store keeps only the newest; the studio reads it again after
 * each reply), and the differences between two of them.
 */
export function stateInspector(versions: readonly SessionStateVersion[]): HTMLElement {
  const latest = versions.at(-1);
  if (!latest) return h("p", { class: "note" }, "No state read yet.");
  const label = (v: SessionStateVersion) =>
    `version ${v.version} (${new Date(v.readAt).toLocaleTimeString("en")})`;
  const options = (selected: number) =>
    versions.map((v, i) => h("option", { value: String(i), selected: i === selected }, label(v)));
  const from = h("select", { id: "state-from" }, ...options(Math.max(0, versions.length - 2)));
  const to = h("select", { id: "state-to" }, ...options(versions.length - 1));
  const diff = h("div", { class: "state-diff", role: "region", "aria-label": "Differences" });
  const showDiff = () => {
    const a = versions[Number(from.value)]!;
    const b = versions[Number(to.value)]!;
    const changes = jsonDiff(a.state, b.state);
    diff.replaceChildren(
      changes.length === 0
        ? h("p", { class: "note" }, a === b ? "Pick two different versions." : "No differences.")
        : h(
            "ul",
            { class: "state-changes" },
            ...changes.map((c) =>
              h(
                "li",
                { "data-kind": c.kind, "data-path": c.path },
                h("code", {}, c.path),
                ` ${c.kind}`,
                c.kind === "changed"
                  ? h(
                      "span",
                      { class: "meta" },
                      `: ${JSON.stringify(c.before)?.slice(0, 80)} → ${JSON.stringify(c.after)?.slice(0, 80)}`,
                    )
                  : h(
                      "span",
                      { class: "meta" },
                      `: ${JSON.stringify(c.kind === "added" ? c.after : c.before)?.slice(0, 120)}`,
                    ),
              ),
            ),
          ),
    );
  };
  from.addEventListener("change", showDiff);
  to.addEventListener("change", showDiff);
  showDiff();
  return h(
    "div",
    { class: "state-inspector" },
    h(
      "p",
      { class: "note" },
      `${label(latest)} · ${versions.length} version${versions.length === 1 ? "" : "s"} read by this page`,
    ),
    stateParts(latest.state),
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
