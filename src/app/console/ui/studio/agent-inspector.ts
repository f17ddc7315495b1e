import type { AgentProfile, ToolProfile } from "../../../../client/index.js";
import { h } from "../dom.js";

const section = (title: string, ...children: Array<Node | false>) =>
  h(
    "section",
    { class: "studio-section", "aria-label": title },
    h("h3", {}, title),
    ...children.filter((c): c is Node => c !== false),
  );

const list = (items: string[], empty: string) =>
  items.length === 0
    ? h("p", { class: "note" }, empty)
    : h("ul", { class: "studio-list" }, ...items.map((item) => h("li", {}, item)));

const facts = (rows: Array<[string, string]>) =>
  h("dl", { class: "studio-facts" }, ...rows.flatMap(([k, v]) => [h("dt", {}, k), h("dd", {}, v)]));

function toolNode(tool: ToolProfile): HTMLElement {
  const flags = [
    tool.readOnly ? "read-only" : "changes things",
    tool.concurrencySafe && "runs in parallel",
    tool.editsFiles && "edits files",
    tool.external && "external",
    tool.ownCheck && "own permission check",
    !tool.active && `group ${tool.group} inactive`,
    tool.mcpServer && `MCP ${tool.mcpServer}`,
  ].filter((flag): flag is string => typeof flag === "string");
  return h(
    "details",
    { class: "studio-tool", "data-tool": tool.name },
    h(
      "summary",
      { class: "studio-tool-head" },
      h("code", {}, tool.name),
      " ",
      h("span", { class: "meta" }, tool.description),
    ),
    h("p", { class: "studio-flags" }, ...flags.map((flag) => h("span", { class: "chip" }, flag))),
    facts([
      [
        "Rules",
        tool.rules.length === 0
          ? "none name it"
          : tool.rules.map((r) => `${r.behavior}: ${r.rule}`).join(", "),
      ],
      ["Without a rule", tool.fallback],
    ]),
    h(
      "pre",
      { class: "studio-json", tabindex: "0", "aria-label": `${tool.name} input schema` },
      JSON.stringify(tool.inputSchema, null, 2),
    ),
  );
}

/**
 * The agent inspector: what the session's agent is (GET /v1/sessions/:id/agent). The system prompt
 * is the one the next model call sends, middleware applied.
 */
export function agentInspector(profile: AgentProfile): HTMLElement {
  const model = profile.model;
  return h(
    "div",
    { class: "studio-inspector" },
    section(
      "System prompt (as sent)",
      h(
        "pre",
        { class: "studio-prompt", tabindex: "0", "aria-label": "System prompt" },
        profile.systemPrompt || "(none)",
      ),
      profile.summary !== undefined &&
        h(
          "p",
          { class: "note" },
          `Followed by the summary of compressed context (${profile.summary.length} characters).`,
        ),
    ),
    section(
      "Model",
      facts([
        ["Model", `${model.name} (${model.provider})`],
        ["Context window", `${model.contextSize.toLocaleString("en")} tokens`],
        [
          "Fallback",
          profile.fallbackModel
            ? `${profile.fallbackModel.name} (${profile.fallbackModel.provider})`
            : "none",
        ],
        ["Max iterations", String(profile.maxIters)],
        ...Object.entries(profile.context).map(([k, v]): [string, string] => [k, String(v)]),
      ]),
    ),
    section(
      `Tools (${profile.tools.length})`,
      profile.tools.length === 0
        ? h("p", { class: "note" }, "This agent has no tools.")
        : h("div", {}, ...profile.tools.map(toolNode)),
    ),
    section(
      "Permission",
      facts([
        ["Mode", profile.permission.mode],
        ["Working directories", profile.permission.workingDirectories.join(", ") || "none"],
        ["Confined to", profile.permission.boundary ?? "no boundary"],
      ]),
      list(
        profile.permission.rules.map((r) => `${r.behavior}: ${r.rule} (${r.source})`),
        "No rules: each call gets its tool's default for the mode.",
      ),
    ),
    section(
      "Middleware",
      list(
        profile.middlewares.map((m) => `${m.name}: ${m.hooks.join(", ") || "no hooks"}`),
        "No middleware.",
      ),
    ),
    section(
      "MCP servers",
      list(
        profile.mcpServers.map((s) => `${s.name}: ${s.tools.length} tools`),
        "No MCP server tools (add servers with the workspace's mcpServers).",
      ),
    ),
    section(
      "Skills",
      list(
        profile.skills.map((s) => `${s.name}: ${s.description}`),
        "No skills (give the agent skills: loadSkills(dir)).",
      ),
    ),
    section(
      "Workspace",
      profile.workspace
        ? facts([
            ["One workspace per", profile.workspace.scope],
            ["Commands", profile.workspace.sandboxed ? "run in a bubblewrap sandbox" : "run unsandboxed"],
          ])
        : h(
            "p",
            { class: "note" },
            "This server keeps no workspaces (serve with a data directory to turn them on).",
          ),
    ),
  );
}
