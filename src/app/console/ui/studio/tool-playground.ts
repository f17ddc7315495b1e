import type { AgentProfile, AgentScopeClient, ToolProfile, ToolTrial } from "../../../../client/index.js";
import { h } from "../dom.js";

type Schema = {
  type?: string | string[];
  enum?: unknown[];
  description?: string;
  properties?: Record<string, Schema>;
  required?: string[];
};

interface Field {
  name: string;
  read(): unknown;
  node: HTMLElement;
}

/** One form field per property of the tool's JSON Schema: text, number, checkbox, a choice, or JSON. */
function fieldFor(tool: string, name: string, schema: Schema, required: boolean): Field {
  const id = `pg-${tool}-${name}`;
  const type = Array.isArray(schema.type) ? schema.type.find((t) => t !== "null") : schema.type;
  let input: HTMLInputElement | HTMLSelectElement | HTMLTextAreaElement;
  let read: () => unknown;
  if (schema.enum) {
    const select = h(
      "select",
      { id },
      ...schema.enum.map((v) => h("option", { value: JSON.stringify(v) }, String(v))),
    );
    input = select;
    read = () => JSON.parse(select.value);
  } else if (type === "boolean") {
    const box = h("input", { id, type: "checkbox" });
    input = box;
    read = () => box.checked;
  } else if (type === "number" || type === "integer") {
    const box = h("input", { id, type: "number", step: type === "integer" ? "1" : "any" });
    input = box;
    read = () => (box.value === "" ? undefined : Number(box.value));
  } else if (type === "string") {
    const box = h("input", { id, type: "text", spellcheck: "false" });
    input = box;
    read = () => (box.value === "" && !required ? undefined : box.value);
  } else {
    const area = h("textarea", { id, rows: "3", spellcheck: "false", placeholder: "JSON" });
    input = area;
    read = () => (area.value.trim() === "" ? undefined : JSON.parse(area.value));
  }
  input.dataset.field = name;
  const label = h(
    "label",
    { for: id },
    name,
    required ? " *" : "",
    schema.description ? h("span", { class: "meta" }, ` ${schema.description}`) : undefined,
  );
  return { name, read, node: h("div", { class: "pg-field" }, label, input) };
}

function trialNode(trial: ToolTrial): HTMLElement {
  const d = trial.decision;
  return h(
    "div",
    { class: "pg-trial", "data-behavior": d.behavior, "data-ran": String(trial.ran), role: "status" },
    h("p", {}, h("strong", {}, `Decision: ${d.behavior}`), ` — ${d.reason}`),
    d.rule !== undefined && h("p", { class: "meta" }, `by the rule ${d.rule}`),
    d.safety === true && h("p", { class: "meta" }, "a safety ask: no allow rule silences it"),
    h(
      "p",
      { class: "meta" },
      trial.ran
        ? `Ran (${trial.approvedBy === "person" ? "you approved it" : "the engine allowed it"}).`
        : "Did not run.",
    ),
    trial.result !== undefined &&
      h(
        "pre",
        {
          class: "studio-json pg-output",
          "data-state": trial.result.state,
          tabindex: "0",
          "aria-label": "Tool output",
        },
        trial.result.output || "(no output)",
      ),
  );
}

/**
 * The tool playground: pick a tool of the session's agent, fill a form made from its JSON Schema,
 * and run it through the permission gate and the session's workspace (POST
 * /v1/sessions/:id/tools/:name/run). The decision is shown; an ask offers "Approve and run".
 */
export function toolPlayground(
  client: AgentScopeClient,
  sessionId: string,
  profile: AgentProfile,
): HTMLElement {
  if (profile.tools.length === 0) return h("p", { class: "note" }, "This agent has no tools to try.");
  const body = h("div", { class: "pg-form" });
  const picker = h(
    "select",
    { id: "pg-tool", "aria-label": "Tool" },
    ...profile.tools.map((tool) => h("option", { value: tool.name }, tool.name)),
  );
  const show = (tool: ToolProfile) => {
    const schema = tool.inputSchema as Schema;
    const required = new Set(schema.required ?? []);
    const fields = Object.entries(schema.properties ?? {}).map(([name, prop]) =>
      fieldFor(tool.name, name, prop, required.has(name)),
    );
    const outcome = h("div", { class: "pg-outcome" });
    const run = async (approved: boolean) => {
      let input: Record<string, unknown>;
      try {
        input = {};
        for (const field of fields) {
          const value = field.read();
          if (value !== undefined) input[field.name] = value;
        }
      } catch (error) {
        outcome.replaceChildren(
          h("p", { class: "error", role: "alert" }, `Not JSON: ${(error as Error).message}`),
        );
        return;
      }
      outcome.replaceChildren(h("p", { class: "note" }, "Running…"));
      try {
        const trial = await client.runTool(sessionId, tool.name, { input, approved });
        const approve =
          trial.decision.behavior === "ask" && !trial.ran
            ? h(
                "button",
                { type: "button", class: "primary pg-approve", onclick: () => void run(true) },
                "Approve and run",
              )
            : undefined;
        outcome.replaceChildren(trialNode(trial), ...(approve ? [approve] : []));
      } catch (error) {
        outcome.replaceChildren(h("p", { class: "error", role: "alert" }, (error as Error).message));
      }
    };
    const form = h(
      "form",
      { class: "pg-fields", "aria-label": `Arguments of ${tool.name}` },
      h("p", { class: "meta" }, tool.description),
      ...(fields.length > 0 ? fields.map((f) => f.node) : [h("p", { class: "note" }, "No arguments.")]),
      h("button", { type: "submit", class: "primary pg-run" }, "Run"),
    );
    form.addEventListener("submit", (event) => {
      event.preventDefault();
      void run(false);
    });
    body.replaceChildren(form, outcome);
  };
  picker.addEventListener("change", () => show(profile.tools.find((t) => t.name === picker.value)!));
  show(profile.tools[0]!);
  return h(
    "div",
    { class: "pg" },
    h(
      "p",
      { class: "note" },
      "Runs the tool as the agent would: the permission engine decides this input in this session, then the tool runs in the session's workspace. The session's messages are not changed.",
    ),
    h("label", { for: "pg-tool" }, "Tool "),
    picker,
    body,
  );
}
