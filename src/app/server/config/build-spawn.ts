import type { Agent } from "../../../agent/index.js";
import type { PermissionOptions } from "../../../permission/index.js";
import { Toolkit } from "../../../tool/index.js";
import { linkToRuntime } from "../runtime/runtime-links.js";
import type { ServiceAgentOptions } from "../runtime/service-runtime.js";
import { ServiceSpawner, type ServiceSpawnTemplate } from "../spawn/service-spawner.js";
import { ServiceSpawns } from "../spawn/service-spawns.js";
import { type AgentConfig, ConfigError } from "./service-config.js";

/**
 * Wires each agent's `spawn` config: a `ServiceSpawner` over its templates (each a configured agent,
 * run in a session of its own with the template's permission, else that agent's, in dont_ask mode
 * unless one says otherwise or it is exposed), its tools in the agent's toolkit and its middleware
 * (the outcomes of background sub-agents). The spawners share one `ServiceSpawns`, linked to the
 * runtime built over these agents.
 */
export function wireSpawning(
  configs: AgentConfig[],
  agents: ServiceAgentOptions[],
  instance: (name: string, where: string) => Agent,
): void {
  const byName = new Map(agents.map((options) => [options.name, options] as const));
  const spawns = new ServiceSpawns();
  for (const config of configs) {
    if (!config.spawn) continue;
    const where = `agents "${config.name}".spawn`;
    const options = byName.get(config.name);
    const toolkit = options?.toolkit;
    if (!options || !(toolkit instanceof Toolkit))
      throw new ConfigError(`${where}: the agent has no toolkit`);
    const templates: ServiceSpawnTemplate[] = config.spawn.templates.map((template, i) => {
      // checks the name (a configured agent) as before; the sub-agent's session runs that agent
      instance(template.agent, `${where}.templates[${i}].agent`);
      const own = configs.find((c) => c.name === template.agent)?.permission;
      const permission = (template.permission ?? own) as PermissionOptions | undefined;
      return {
        name: template.name,
        description: template.description,
        agent: template.agent,
        ...(permission ? { permission } : {}),
      };
    });
    try {
      const spawner = new ServiceSpawner(
        {
          templates,
          ...(config.spawn.limits ? { limits: config.spawn.limits } : {}),
          ...(config.spawn.followUp !== undefined ? { followUp: config.spawn.followUp } : {}),
        },
        () => spawns.runtime,
        () => spawns.deliveries,
      );
      for (const tool of spawner.tools) toolkit.register(tool);
      options.middlewares = [...(options.middlewares ?? []), spawner.middleware];
      spawns.add(config.name, spawner);
      linkToRuntime(spawner.middleware, spawns);
    } catch (error) {
      throw new ConfigError(`${where}: ${(error as Error).message}`);
    }
  }
}
