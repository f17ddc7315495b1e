import { Agent } from "../../../agent/index.js";
import { handoffTool, subAgentTool, TeamPipeline } from "../../../multiagent/index.js";
import { Toolkit } from "../../../tool/index.js";
import type { ServiceAgentOptions } from "../runtime/service-runtime.js";
import { wireSpawning } from "./build-spawn.js";
import { type AgentConfig, ConfigError, type TeamConfig } from "./service-config.js";

/**
 * Wires the config's `handoffs` (a `handoff` tool in the agent's toolkit), `subagents` (a sub-agent tool per entry, in the delegating agent's toolkit) and
 * `teams` (appended to `agents` as agents of their own: the leader's settings, a copy of its tools and
 * `team_assign`). References name configured agents; unknown names, self-delegation and cycles are
 * ConfigErrors. Sub-agents and members run on their own Agent built from the same options.
 */
export function wireMultiAgent(
  configs: AgentConfig[],
  teams: TeamConfig[] | undefined,
  agents: ServiceAgentOptions[],
): void {
  const byName = new Map(agents.map((options) => [options.name, options] as const));
  const find = (name: string, where: string) => {
    const found = byName.get(name);
    if (!found)
      throw new ConfigError(`${where}: no agent named "${name}" (agents: ${[...byName.keys()].join(", ")})`);
    return found;
  };
  checkNoCycles(configs);
  const instances = new Map<string, Agent>();
  const instance = (name: string) => {
    let agent = instances.get(name);
    if (!agent) {
      agent = new Agent(find(name, "agents"));
      instances.set(name, agent);
    }
    return agent;
  };
  for (const config of configs) {
    for (const [i, sub] of (config.subagents ?? []).entries()) {
      const where = `agents "${config.name}".subagents[${i}]`;
      find(sub.agent, where);
      const toolkit = find(config.name, "agents").toolkit;
      if (!(toolkit instanceof Toolkit)) throw new ConfigError(`${where}: the agent has no toolkit`);
      try {
        toolkit.register(
          subAgentTool(instance(sub.agent), {
            description: sub.description,
            ...(sub.name ? { name: sub.name } : {}),
          }),
        );
      } catch (error) {
        throw new ConfigError(`${where}: ${(error as Error).message}`);
      }
    }
  }
  wireHandoffs(configs, byName);
  wireSpawning(configs, agents, (name, where) => {
    find(name, where);
    return instance(name);
  });
  for (const [i, team] of (teams ?? []).entries()) {
    const where = `teams[${i}] "${team.name}"`;
    if (byName.has(team.name)) throw new ConfigError(`${where}: an agent already has that name`);
    const leader = find(team.leader, `${where}.leader`);
    const tools = leader.toolkit instanceof Toolkit ? leader.toolkit.list() : (leader.toolkit ?? []);
    const options: ServiceAgentOptions = { ...leader, name: team.name, toolkit: new Toolkit(tools) };
    try {
      new TeamPipeline({
        leader: new Agent(options),
        members: team.members.map((m, j) => {
          find(m.agent, `${where}.members[${j}]`);
          return { agent: instance(m.agent), description: m.description };
        }),
      });
    } catch (error) {
      if (error instanceof ConfigError) throw error;
      throw new ConfigError(`${where}: ${(error as Error).message}`);
    }
    agents.push(options);
    byName.set(team.name, options);
  }
}

/** Gives each agent with `handoffs` its `handoff` tool; unknown names and self-handoffs are ConfigErrors. */
function wireHandoffs(configs: AgentConfig[], byName: Map<string, ServiceAgentOptions>): void {
  for (const config of configs) {
    if (!config.handoffs) continue;
    const where = `agents "${config.name}".handoffs`;
    const unknown = config.handoffs.filter((name) => !byName.has(name));
    if (unknown.length > 0) {
      throw new ConfigError(
        `${where}: no agent named ${unknown.map((n) => `"${n}"`).join(", ")} (agents: ${[...byName.keys()].join(", ")})`,
      );
    }
    if (config.handoffs.includes(config.name))
      throw new ConfigError(`${where}: an agent cannot hand off to itself`);
    const toolkit = byName.get(config.name)?.toolkit;
    if (!(toolkit instanceof Toolkit)) throw new ConfigError(`${where}: the agent has no toolkit`);
    try {
      toolkit.register(handoffTool(config.name, [...new Set(config.handoffs)]));
    } catch (error) {
      throw new ConfigError(`${where}: ${(error as Error).message}`);
    }
  }
}

function checkNoCycles(configs: AgentConfig[]): void {
  const edges = new Map(configs.map((c) => [c.name, (c.subagents ?? []).map((s) => s.agent)] as const));
  const visiting = new Set<string>();
  const done = new Set<string>();
  const visit = (name: string, path: string[]) => {
    if (done.has(name)) return;
    if (visiting.has(name)) {
      throw new ConfigError(`agents: subagents form a cycle: ${[...path, name].join(" → ")}`);
    }
    visiting.add(name);
    for (const next of edges.get(name) ?? []) visit(next, [...path, name]);
    visiting.delete(name);
    done.add(name);
  };
  for (const name of edges.keys()) visit(name, []);
}
