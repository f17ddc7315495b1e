import { StateVectorStore } from "../../../memory/index.js";
import type { EmbeddingModel } from "../../../model/index.js";
import { type RagMiddlewareOptions, ragMiddleware, type VectorStore } from "../../../rag/index.js";
import { HashEmbedding } from "../../../testing/index.js";
import { Toolkit } from "../../../tool/index.js";
import type { ServiceBackend, SessionDirectory } from "../backend/types.js";
import { KnowledgeService } from "../http/knowledge-service.js";
import type { ServiceAgentOptions } from "../runtime/service-runtime.js";
import { type AgentConfig, ConfigError, type ServiceConfig } from "./service-config.js";

/**
 * The knowledge service the config's `knowledge` settings describe: chunks in the given vector
 * store (default the state store, partitioned per user) and each user's list of bases in the state
 * store, so both survive a restart and every replica sees them. Undefined without settings.
 */
export function knowledgeServiceOf(
  settings: ServiceConfig["knowledge"],
  backend: ServiceBackend,
): KnowledgeService | undefined {
  if (!settings) return undefined;
  return new KnowledgeService({
    embedding:
      settings.embedding === "hash" ? new HashEmbedding() : (settings.embedding as unknown as EmbeddingModel),
    store:
      (settings.vectorStore as VectorStore | undefined) ??
      new StateVectorStore(backend.store, { partitionKey: "user" }),
    registry: backend.store,
    ...(settings.collection ? { collection: settings.collection } : {}),
    ...(settings.maxUploadBytes ? { maxUploadBytes: settings.maxUploadBytes } : {}),
  });
}

/**
 * Gives each agent whose config has `knowledge` the rag middleware (and, in agentic mode, the
 * `search_knowledge` tool) over the bases of the session's owner with the configured names, looked
 * up when a reply needs them (so bases created later count). The owner comes from the session
 * directory, so one user's session never reaches another user's base of the same name.
 */
export function attachKnowledge(
  configs: AgentConfig[],
  agents: ServiceAgentOptions[],
  service: KnowledgeService | undefined,
  sessions: SessionDirectory,
): void {
  for (const [i, config] of configs.entries()) {
    const settings = config.knowledge;
    const agent = agents[i];
    if (!settings || !agent) continue;
    if (!service) {
      throw new ConfigError(
        `agents "${config.name}".knowledge: needs the knowledge settings in the config (knowledge.embedding: an EmbeddingModel, or "hash" offline)`,
      );
    }
    const knowledge = service;
    const options: RagMiddlewareOptions = {
      knowledgeBases: async (sessionId) => {
        const record = await sessions.get(sessionId);
        if (!record) throw new Error(`knowledge: session "${sessionId}" has no owner record`);
        return knowledge.bases(record.owner, settings.bases);
      },
      mode: settings.mode ?? "agentic",
    };
    if (settings.bases !== "all") options.names = settings.bases;
    if (settings.topK !== undefined) options.topK = settings.topK;
    if (settings.scoreThreshold !== undefined) options.scoreThreshold = settings.scoreThreshold;
    const middleware = ragMiddleware(options);
    agent.middlewares = [...(agent.middlewares ?? []), middleware];
    if (middleware.tools.length === 0) continue;
    if (agent.toolkit instanceof Toolkit) for (const tool of middleware.tools) agent.toolkit.register(tool);
    else agent.toolkit = [...(agent.toolkit ?? []), ...middleware.tools];
  }
}
