import { AgentScopeError, type ErrorType } from "../message/index.js";
import type { ToolSchema } from "../model/index.js";
import { type Closeable, closeAll } from "./closeable.js";
import { type Tool, toolSchemaOf } from "./types.js";

export interface ToolGroup {
  name: string;
  description: string;
  active: boolean;
  /** Extra instructions added to the system prompt while the group is active. */
  notes?: string;
}

export class ToolNameCollisionError extends AgentScopeError {
  static override readonly errorType: ErrorType = "conflict";
  constructor(readonly toolName: string) {
    super(`a tool named "${toolName}" is already registered; remove it first or pick another name`);
    this.name = "ToolNameCollisionError";
  }
}

/** The default group: always active. */
export const BASIC_GROUP = "basic";

/**
 * Holds the tools an agent may call. Tools belong to groups; only active groups' schemas go to the
 * model. Names are unique across the toolkit.
 */
export class Toolkit {
  private readonly tools = new Map<string, { tool: Tool; group: string }>();
  private readonly groups = new Map<string, ToolGroup>([
    [BASIC_GROUP, { name: BASIC_GROUP, description: "always available", active: true }],
  ]);
  private schemaCache: ToolSchema[] | undefined;
  private readonly resources = new Set<Closeable>();

  constructor(tools: Tool[] = []) {
    for (const tool of tools) this.register(tool);
  }

  register(tool: Tool, options: { group?: string } = {}): this {
    const group = options.group ?? BASIC_GROUP;
    if (this.tools.has(tool.name)) throw new ToolNameCollisionError(tool.name);
    if (!this.groups.has(group))
      throw new Error(`unknown tool group "${group}": create it with createGroup first`);
    if (!/^[a-zA-Z0-9_-]{1,128}$/.test(tool.name)) {
      throw new Error(`tool name "${tool.name}" must be 1-128 letters, digits, "_" or "-"`);
    }
    this.tools.set(tool.name, { tool, group });
    this.schemaCache = undefined;
    return this;
  }

  remove(name: string): boolean {
    this.schemaCache = undefined;
    return this.tools.delete(name);
  }

  get(name: string): Tool | undefined {
    return this.tools.get(name)?.tool;
  }

  /** Every registered tool, active or not. */
  list(): Tool[] {
    return [...this.tools.values()].map((entry) => entry.tool);
  }

  createGroup(group: Omit<ToolGroup, "active"> & { active?: boolean }): this {
    if (this.groups.has(group.name)) throw new Error(`tool group "${group.name}" already exists`);
    this.groups.set(group.name, { active: false, ...group });
    this.schemaCache = undefined;
    return this;
  }

  setGroupActive(name: string, active: boolean): this {
    const group = this.groups.get(name);
    if (!group) throw new Error(`unknown tool group "${name}"`);
    group.active = active;
    this.schemaCache = undefined;
    return this;
  }

  activateGroups(...names: string[]): this {
    for (const name of names) this.setGroupActive(name, true);
    return this;
  }

  deactivateGroups(...names: string[]): this {
    for (const name of names) this.setGroupActive(name, false);
    return this;
  }

  listGroups(): ToolGroup[] {
    return [...this.groups.values()].map((group) => ({ ...group }));
  }

  /** The group a tool is registered in (undefined for an unknown tool). */
  groupOf(name: string): string | undefined {
    return this.tools.get(name)?.group;
  }

  /** Whether a tool may be called now (registered and in an active group). */
  isActive(name: string): boolean {
    const entry = this.tools.get(name);
    return entry !== undefined && this.groups.get(entry.group)?.active === true;
  }

  /** The schemas of active tools, computed once per change. */
  schemas(): ToolSchema[] {
    if (!this.schemaCache) {
      this.schemaCache = [...this.tools.values()]
        .filter((entry) => this.groups.get(entry.group)?.active)
        .map((entry) => toolSchemaOf(entry.tool));
    }
    return this.schemaCache;
  }

  /** Notes of active groups, for the system prompt. */
  groupNotes(): string[] {
    return [...this.groups.values()].filter((g) => g.active && g.notes).map((g) => `${g.name}: ${g.notes}`);
  }

  /** Keeps a resource (e.g. an MCP client) open for the toolkit's tools; `close()` closes it. */
  attach(resource: Closeable): this {
    this.resources.add(resource);
    return this;
  }

  /** Closes every attached resource (the agent calls this when it is disposed). */
  async close(): Promise<void> {
    const resources = [...this.resources];
    this.resources.clear();
    await closeAll(resources);
  }
}
