import { formatRule, type PermissionContext, type PermissionRule } from "../permission/index.js";
import type { AgentProfile, ToolProfile } from "../protocol/index.js";
import type { AgentState } from "../state/index.js";
import type { Skill, Tool } from "../tool/index.js";
import type { Middleware } from "./middleware.js";
import { MiddlewareRunner } from "./middleware-runner.js";
import { buildModelInput } from "./model-input.js";
import type { RunConfig } from "./reply-run.js";

const HOOKS = [
  "systemPrompt",
  "onReply",
  "beforeReasoning",
  "afterReasoning",
  "onModelCall",
  "onToolCall",
  "onPermission",
  "onEvent",
] as const satisfies ReadonlyArray<keyof Middleware>;

const MCP_NAME = /^mcp__(.+?)__/;

const modelOf = (model: { name: string; provider: string; contextSize: number }) => ({
  name: model.name,
  provider: model.provider,
  contextSize: model.contextSize,
});

const ruleOf = (rule: PermissionRule) => ({
  behavior: rule.behavior,
  rule: formatRule(rule),
  source: rule.source,
});

/** What a call no rule names gets in `mode`, in words (the engine's fallback, DESIGN.md §3.4). */
function fallbackOf(tool: Tool, mode: PermissionContext["mode"]): string {
  const own = tool.checkPermissions ? "the tool's own check, then " : "";
  if (mode === "bypass") return "allowed (bypass mode), unless a rule denies it";
  if (tool.readOnly) return `${own}allowed: it is read-only`;
  if (mode === "explore") return "denied: explore mode is read-only";
  if (mode === "accept_edits" && tool.editsFiles)
    return `${own}allowed inside the working directories (accept_edits), else asks`;
  return mode === "dont_ask" ? `${own}denied (dont_ask mode turns asks into denials)` : `${own}asks a person`;
}

/**
 * The system prompt the next model call of `state` sends: the agent's prompt through the
 * middleware `systemPrompt` hooks (run on a copy of the state, so their `data()` changes nothing),
 * then the active tool groups' notes, as `buildModelInput` joins them.
 */
function promptFor(config: RunConfig, state: AgentState): { systemPrompt: string; summary?: string } {
  const copy = structuredClone(state);
  const runner = new MiddlewareRunner(
    config.middlewares,
    { state: copy, agentName: config.name, replyId: () => "inspect", emit() {}, requestStop() {} },
    () => Promise.reject(new Error("the inspector decides nothing")),
    () => Promise.reject(new Error("the inspector runs nothing")),
  );
  const [system] = buildModelInput(
    runner.systemPrompt(config.systemPrompt),
    config.toolkit.groupNotes(),
    undefined,
    [],
  );
  const text = system?.content[0]?.type === "text" ? system.content[0].text : "";
  return state.summary ? { systemPrompt: text, summary: state.summary } : { systemPrompt: text };
}

/** The inspector's view of an agent serving `state` (see `Agent.profile`). */
export function agentProfile(config: RunConfig, state: AgentState, skills: readonly Skill[]): AgentProfile {
  const permission = state.permission;
  const toolkit = config.toolkit;
  const tools: ToolProfile[] = toolkit.list().map((tool) => {
    const server = MCP_NAME.exec(tool.name)?.[1];
    const profile: ToolProfile = {
      name: tool.name,
      description: tool.description,
      inputSchema: structuredClone(tool.inputSchema) as Record<string, unknown>,
      group: toolkit.groupOf(tool.name) ?? "basic",
      active: toolkit.isActive(tool.name),
      readOnly: tool.readOnly,
      concurrencySafe: tool.concurrencySafe,
      editsFiles: tool.editsFiles === true,
      external: tool.external === true,
      ownCheck: tool.checkPermissions !== undefined,
      rules: permission.rules.filter((rule) => rule.toolName === tool.name).map(ruleOf),
      fallback: fallbackOf(tool, permission.mode),
    };
    if (server) profile.mcpServer = server;
    return profile;
  });
  const servers = new Map<string, string[]>();
  for (const tool of tools)
    if (tool.mcpServer) servers.set(tool.mcpServer, [...(servers.get(tool.mcpServer) ?? []), tool.name]);
  const context = config.context;
  const profile: AgentProfile = {
    name: config.name,
    ...promptFor(config, state),
    model: modelOf(config.model),
    maxIters: config.maxIters,
    context: {
      ...(context.triggerRatio !== undefined ? { triggerRatio: context.triggerRatio } : {}),
      ...(context.reserveRatio !== undefined ? { reserveRatio: context.reserveRatio } : {}),
      ...(context.maxImages !== undefined ? { maxImages: context.maxImages } : {}),
      ...(context.summaryModel ? { summaryModel: context.summaryModel.name } : {}),
    },
    tools,
    groups: toolkit.listGroups().map((g) => ({ name: g.name, description: g.description, active: g.active })),
    permission: {
      mode: permission.mode,
      rules: permission.rules.map(ruleOf),
      workingDirectories: [...permission.workingDirectories],
      ...(permission.boundary ? { boundary: permission.boundary.directory } : {}),
    },
    middlewares: config.middlewares.map((m) => ({ name: m.name, hooks: HOOKS.filter((hook) => m[hook]) })),
    mcpServers: [...servers].map(([name, names]) => ({ name, tools: names })),
    skills: skills.map((skill) => ({ name: skill.name, description: skill.description })),
  };
  if (config.fallbackModel) profile.fallbackModel = modelOf(config.fallbackModel);
  return profile;
}
