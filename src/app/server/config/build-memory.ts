import {
  type LongTermMemory,
  type MemoryFiles,
  type MemoryScope,
  memoryTool,
  SemanticMemory,
  type SemanticMemoryMiddleware,
  StateVectorStore,
  semanticMemoryMiddleware,
  stateMemoryFiles,
} from "../../../memory/index.js";
import type { ChatModel, EmbeddingModel } from "../../../model/index.js";
import type { VectorStore } from "../../../rag/index.js";
import { HashEmbedding } from "../../../testing/index.js";
import { Toolkit } from "../../../tool/index.js";
import type { ServiceBackend, SessionRecord } from "../backend/types.js";
import type { ServiceAgentOptions } from "../runtime/service-runtime.js";
import { resolveModel } from "./model-spec.js";
import { type AgentConfig, ConfigError, type ServiceConfig } from "./service-config.js";

/** An agent's `memory` setting with its defaults filled in, or undefined when memory is off. */
function memoryOf(config: AgentConfig) {
  const m = config.memory;
  if (m === undefined || m === false) return undefined;
  const settings = m === true ? {} : m;
  return {
    semantic: settings.semantic ?? true,
    notes: settings.notes ?? true,
    topK: settings.topK ?? 5,
    perAgent: settings.perAgent ?? false,
  };
}

/** A session's memory scope from its record: its owner, and its agent when memory is per agent. */
function scopeOfRecord(record: SessionRecord, perAgent: boolean): MemoryScope {
  return perAgent ? { userId: record.owner, agentId: record.agent } : { userId: record.owner };
}

/**
 * The memory scope of a session: its owner (and the agent, when memory is per agent). Looked up in
 * the session directory, so it holds on every replica; an unknown session has no scope.
 */
function sessionScope(backend: ServiceBackend, perAgent: boolean) {
  return async (sessionId: string): Promise<MemoryScope> => {
    const record = await backend.sessions.get(sessionId);
    if (!record) throw new Error(`memory: session "${sessionId}" has no owner record`);
    return scopeOfRecord(record, perAgent);
  };
}

/** What the /v1/memories routes serve: each part absent when no agent uses it. */
export interface ServiceMemory {
  semantic?: LongTermMemory;
  /** A scope's notes directory (the one the `Memory` tool writes for that user, or user and agent). */
  notes?: (scope: MemoryScope) => MemoryFiles;
  /**
   * The notes directory a session's `Memory` tool writes (undefined: its agent has no notes), which
   * the service's checkpoints snapshot so a rewind can revert the writes (docs/time-travel.md).
   */
  notesOfSession?: (record: SessionRecord) => MemoryFiles | undefined;
  /** Resolves when the memory extractions started so far have finished (before the backend closes). */
  flush(): Promise<void>;
}

/**
 * Wires long-term memory into the agents whose config turns it on: the semantic memory middleware
 * (one SemanticMemory shared by all of them, scoped per session owner) and the `Memory` notes tool
 * (backed by the state store, so every replica sees the same notes). Returns what the /v1/memories
 * routes serve.
 */
export async function attachMemory(
  configs: AgentConfig[],
  agents: ServiceAgentOptions[],
  settings: ServiceConfig["memory"],
  backend: ServiceBackend,
): Promise<ServiceMemory> {
  let memory: SemanticMemory | undefined;
  let notes: ServiceMemory["notes"];
  const middlewares: SemanticMemoryMiddleware[] = [];
  const notesPerAgent = new Map<string, boolean>(); // agent name → whether its notes are per agent
  for (const [i, config] of configs.entries()) {
    const options = memoryOf(config);
    const agent = agents[i];
    if (!options || !agent) continue;
    const scopeOf = sessionScope(backend, options.perAgent);
    if (options.semantic) {
      if (!settings) {
        throw new ConfigError(
          `agents "${config.name}".memory: semantic memory needs memory.embedding in the config (an EmbeddingModel, or "hash" offline)`,
        );
      }
      memory ??= new SemanticMemory({
        model: settings.model ? await resolveModel(settings.model, config.name) : (agent.model as ChatModel),
        embedding:
          settings.embedding === "hash"
            ? new HashEmbedding()
            : (settings.embedding as unknown as EmbeddingModel),
        store: (settings.vectorStore as VectorStore | undefined) ?? new StateVectorStore(backend.store),
      });
      const middleware = semanticMemoryMiddleware({
        memory,
        scope: (ctx) => scopeOf(ctx.state.sessionId),
        topK: options.topK,
      });
      middlewares.push(middleware);
      agent.middlewares = [...(agent.middlewares ?? []), middleware];
    }
    if (options.notes) {
      notes ??= (scope) => stateMemoryFiles(backend.store, scope);
      const notesOf = notes;
      notesPerAgent.set(config.name, options.perAgent);
      const tool = memoryTool({ files: async (ctx) => notesOf(await scopeOf(ctx.sessionId)) });
      if (agent.toolkit instanceof Toolkit) agent.toolkit.register(tool);
      else agent.toolkit = [...(agent.toolkit ?? []), tool];
    }
  }
  const served: ServiceMemory = {
    flush: async () => {
      await Promise.all(middlewares.map((middleware) => middleware.flush()));
    },
  };
  if (memory) served.semantic = memory;
  if (notes) {
    const notesOf = notes;
    served.notes = notesOf;
    served.notesOfSession = (record) => {
      const perAgent = notesPerAgent.get(record.agent);
      return perAgent === undefined ? undefined : notesOf(scopeOfRecord(record, perAgent));
    };
  }
  return served;
}
