import type { Agent } from "../../../agent/index.js";
import { agentSpawner, type SpawnTemplate } from "../../../multiagent/index.js";
import type { PermissionOptions } from "../../../permission/index.js";
import { Toolkit } from "../../../tool/index.js";
import type { ServiceAgentOptions } from "../runtime/service-runtime.js";
import { type AgentConfig, ConfigError } from "./service-config.js";

/**
 * Wires each agent's `spawn` config: an `AgentSpawner` over its templates (each a configured agent,
 * run with the template's permission, else that agent's, in dont_ask mode unless one says otherwise),
 * its tools in the agent's toolkit and its middleware (the hints of background sub-agents).
 */
export function wireSpawning(
  configs: AgentConfig[],
  agents: ServiceAgentOptions[],
  instance: (name: string, where: string) => Agent,
): void {
  const byName = new Map(agents.map((options) => [options.name, options] as const));
  for (const config of configs) {
    if (!config.spawn) continue;
    const where = `agents "${config.name}".spawn`;
    const options = byName.get(config.name);
    const toolkit = options?.toolkit;
    if (!options || !(toolkit instanceof Toolkit))
      throw new ConfigError(`${where}: the agent has no toolkit`);
    const templates: SpawnTemplate[] = config.spawn.templates.map((template, i) => {
      const agent = instance(template.agent, `${where}.templates[${i}].agent`);
      const own = configs.find((c) => c.name === template.agent)?.permission;
      const permission = (template.permission ?? own) as PermissionOptions | undefined;
      return {
        name: template.name,
        description: template.description,
        agent,
        ...(permission ? { permission } : {}),
        ...(template.canSpawn !== undefined ? { canSpawn: template.canSpawn } : {}),
      };
    });
    try {
      const spawner = agentSpawner({
        templates,
        ...(config.spawn.limits ? { limits: config.spawn.limits } : {}),
      });
      for (const tool of spawner.tools) toolkit.register(tool);
      options.middlewares = [...(options.middlewares ?? []), spawner.middleware];
    } catch (error) {
      throw new ConfigError(`${where}: ${(error as Error).message}`);
    }
  }
}
