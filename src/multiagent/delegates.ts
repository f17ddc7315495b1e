import type { Tool, Toolkit } from "../tool/index.js";

/**
 * The agents an agent can delegate to, read from its toolkit: sub-agent tools and `team_assign`
 * carry `delegatesTo` (agent names). For listings such as the service's /v1/agents.
 */
export function delegatesOf(toolkit: Toolkit): { subagents: string[]; members: string[] } {
  const subagents: string[] = [];
  const members: string[] = [];
  for (const tool of toolkit.list() as Array<Tool & { delegatesTo?: string[] }>) {
    if (!tool.delegatesTo) continue;
    if (tool.name === "team_assign") members.push(...tool.delegatesTo);
    else subagents.push(...tool.delegatesTo);
  }
  return { subagents, members };
}
