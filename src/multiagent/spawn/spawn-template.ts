import { Agent, type Middleware } from "../../agent/index.js";
import type { ChatModel } from "../../model/core.js";
import type { PermissionContext, PermissionOptions } from "../../permission/index.js";
import { permissionContextFrom } from "../../permission/index.js";
import type { Tool } from "../../tool/index.js";
import type { AgentLike } from "../agent-like.js";

/**
 * What `agent_spawn` may start: a named sub-agent recipe. Either an `agent` built in code, or the
 * parts to build one (`systemPrompt`, `model`, `tools`, `maxIters`). `permission` is the sub-agent's
 * own setting; at each spawn it is narrowed by the parent's (`narrowPermission`), so a template
 * never widens what the parent may do.
 */
export interface SpawnTemplate {
  /** What the model passes as `template`: 1-64 letters, digits, "_" or "-". */
  name: string;
  /** Shown to the model in the tool description: what this sub-agent is good at. */
  description: string;
  agent?: AgentLike;
  systemPrompt?: string;
  /** The model (or a `provider:model` spec); required unless `agent` is given. */
  model?: ChatModel | string;
  tools?: Tool[];
  maxIters?: number;
  /**
   * The sub-agent's permission (default mode `dont_ask`: nobody watches a spawned sub-agent, so what
   * would ask is denied). Narrowed by the parent's at every spawn.
   */
  permission?: PermissionOptions;
  /** The sub-agent may spawn sub-agents itself (within the depth limit); default false. */
  canSpawn?: boolean;
}

/** A template checked once, with its agent (built on first use) and its permission as plain data. */
export interface ResolvedTemplate {
  template: SpawnTemplate;
  permission: Partial<PermissionContext>;
  agent(spawnTools: () => { tools: Tool[]; middleware: Middleware }): AgentLike;
}

const NAME = /^[A-Za-z0-9_-]{1,64}$/;

/** Checks the templates (names unique and well formed, an agent or a model each) and resolves them. */
export function resolveTemplates(templates: readonly SpawnTemplate[]): Map<string, ResolvedTemplate> {
  if (!Array.isArray(templates) || templates.length === 0) {
    throw new TypeError("agentSpawner: templates must be a non-empty list");
  }
  const resolved = new Map<string, ResolvedTemplate>();
  templates.forEach((template, i) => {
    const at = `agentSpawner: templates[${i}]`;
    if (typeof template?.name !== "string" || !NAME.test(template.name)) {
      throw new TypeError(`${at}.name must be 1-64 letters, digits, "_" or "-"`);
    }
    if (resolved.has(template.name)) throw new TypeError(`${at}.name "${template.name}" is used twice`);
    if (typeof template.description !== "string" || template.description.trim() === "") {
      throw new TypeError(`${at}.description must be a non-empty string`);
    }
    if (!template.agent && !template.model) throw new TypeError(`${at} needs an agent or a model`);
    const permission = { mode: "dont_ask" as const, ...permissionContextFrom(template.permission, "config") };
    let built: AgentLike | undefined = template.agent;
    resolved.set(template.name, {
      template,
      permission,
      agent(spawnTools) {
        if (built) return built;
        const extra = template.canSpawn ? spawnTools() : undefined;
        built = new Agent({
          name: template.name,
          model: template.model!,
          ...(template.systemPrompt !== undefined ? { systemPrompt: template.systemPrompt } : {}),
          toolkit: [...(template.tools ?? []), ...(extra?.tools ?? [])],
          ...(extra ? { middlewares: [extra.middleware] } : {}),
          ...(template.maxIters !== undefined ? { maxIters: template.maxIters } : {}),
        });
        return built;
      },
    });
  });
  return resolved;
}
