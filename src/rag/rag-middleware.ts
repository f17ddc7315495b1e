import { z } from "zod";
import { type Middleware, type MiddlewareContext, taintReply } from "../agent/index.js";
import { newId, textOf } from "../message/index.js";
import { functionTool, type Tool } from "../tool/index.js";
import { citationOf, formatExcerpts } from "./citations.js";
import { RagError } from "./errors.js";
import type { KnowledgeBase, KnowledgeHit, SearchMode } from "./knowledge-base.js";

export const SEARCH_KNOWLEDGE_TOOL = "search_knowledge";

export const DEFAULT_HINT_TEMPLATE =
  "Excerpts from the knowledge base that may answer the user's message. Use them if they are relevant and cite them by number, e.g. [1]:\n\n{excerpts}";

/**
 * The bases to search: a fixed list, or a function that gives a session's bases when it is needed
 * (e.g. the session owner's, in the service). A function may give none; the search then finds nothing.
 */
export type KnowledgeBasesSource =
  | readonly KnowledgeBase[]
  | ((sessionId: string) => Promise<readonly KnowledgeBase[]>);

export interface RagMiddlewareOptions {
  knowledgeBases: KnowledgeBasesSource;
  /**
   * With `knowledgeBases` as a function: the names the model may choose between (in the tool's
   * schema and the system prompt); omitted = any name, the prompt says "the knowledge bases".
   */
  names?: string[];
  /**
   * `agentic`: the model decides when to search, through the read-only `search_knowledge` tool
   * (register `middleware.tools` in the agent's toolkit). `static`: every reply searches with the
   * user's message before the first reasoning step and puts the excerpts in a hint block.
   */
  mode?: "agentic" | "static";
  /** Default 5. */
  topK?: number;
  scoreThreshold?: number;
  searchMode?: SearchMode;
  /** Static mode: the hint text, `{excerpts}` replaced by the numbered excerpts. */
  hintTemplate?: string;
  /** Static mode: keep the hint in the session's context after the reply (default false: removed). */
  persistHint?: boolean;
  /**
   * Static mode: what the retrieved excerpts mark the reply with (docs/guardrails.md, taint), since a
   * document may say anything; default "a RAG document". `false`: the knowledge is trusted. (Agentic
   * mode: `search_knowledge` results taint an agent with `taint` unless its `knowledge` is false.)
   */
  taint?: string | false;
  /** Middleware name (keys its session data); default `rag`. */
  name?: string;
}

/** A Middleware plus the tools it needs in the agent's toolkit (empty in static mode). */
export interface RagMiddleware extends Middleware {
  tools: Tool[];
}

/** The latest user message's text. */
function userText(ctx: MiddlewareContext): string {
  for (let i = ctx.state.context.length - 1; i >= 0; i--) {
    const msg = ctx.state.context[i];
    if (msg?.role === "user") return textOf(msg);
  }
  return "";
}

/** Searches every base with the queries, merged best first, truncated to topK. */
async function searchAll(
  bases: readonly KnowledgeBase[],
  queries: string[],
  options: { topK: number; scoreThreshold?: number; searchMode?: SearchMode; signal?: AbortSignal },
): Promise<KnowledgeHit[]> {
  const { topK, scoreThreshold, searchMode, signal } = options;
  const results = await Promise.all(
    bases.map((base) =>
      base.search(queries, {
        topK,
        ...(scoreThreshold !== undefined ? { scoreThreshold } : {}),
        ...(searchMode ? { mode: searchMode } : {}),
        ...(signal ? { signal } : {}),
      }),
    ),
  );
  return results
    .flat()
    .sort((a, b) => b.score - a.score)
    .slice(0, topK);
}

/** The read-only tool that lets a model search the given knowledge bases (by name). */
export function searchKnowledgeTool(
  source: KnowledgeBasesSource,
  options: { topK?: number; scoreThreshold?: number; searchMode?: SearchMode; names?: string[] } = {},
): Tool {
  const names = typeof source === "function" ? options.names : source.map((base) => base.name);
  const catalogue =
    typeof source === "function"
      ? (names ?? []).map((name) => `- ${name}`).join("\n")
      : source.map((base) => `- ${base.name}${base.description ? `: ${base.description}` : ""}`).join("\n");
  const baseName = names && names.length > 0 ? z.enum(names as [string, ...string[]]) : z.string().min(1);
  return functionTool({
    name: SEARCH_KNOWLEDGE_TOOL,
    description: `Search the knowledge bases for passages relevant to a query. Results are numbered excerpts with their sources; cite them.${catalogue ? ` Knowledge bases:\n${catalogue}` : ""}`,
    input: z.object({
      query: z.string().min(1).describe("What to look for, in natural language or keywords"),
      knowledge_base: baseName.optional().describe("Which knowledge base to search; all when omitted"),
      top_k: z.number().int().min(1).max(50).optional().describe("How many excerpts to return"),
    }),
    readOnly: true,
    async execute({ query, knowledge_base, top_k }, ctx) {
      const bases = typeof source === "function" ? await source(ctx.sessionId) : source;
      const chosen = knowledge_base ? bases.filter((base) => base.name === knowledge_base) : bases;
      if (knowledge_base && chosen.length === 0) return `There is no knowledge base "${knowledge_base}".`;
      const hits = await searchAll(chosen, [query], {
        topK: top_k ?? options.topK ?? 5,
        ...(options.scoreThreshold !== undefined ? { scoreThreshold: options.scoreThreshold } : {}),
        ...(options.searchMode ? { searchMode: options.searchMode } : {}),
        signal: ctx.signal,
      });
      if (hits.length === 0) return `No passages found for "${query}".`;
      return formatExcerpts(hits.map((hit) => hit.chunk));
    },
  });
}

interface StaticData extends Record<string, unknown> {
  /** Hint block ids this middleware added, to remove after the reply. */
  hintIds: string[];
  /** Citations of the last static retrieval, for display. */
  sources: string[];
}

/**
 * Retrieval for an agent. Agentic mode adds `search_knowledge` (pass `tools` to the toolkit) and
 * lists the bases in the system prompt; static mode retrieves before the first reasoning step of
 * each reply and emits a HINT_BLOCK the model reads (removed from the context after the reply
 * unless `persistHint`). Excerpts are numbered with their sources so answers can cite them.
 */
export function ragMiddleware(options: RagMiddlewareOptions): RagMiddleware {
  const source = options.knowledgeBases;
  if (typeof source !== "function") {
    if (source.length === 0) throw new RagError("ragMiddleware needs at least one knowledge base");
    if (new Set(source.map((base) => base.name)).size !== source.length)
      throw new RagError("ragMiddleware: knowledge base names must be unique");
  }
  const names = typeof source === "function" ? options.names : source.map((base) => base.name);
  const basesOf = async (sessionId: string) => (typeof source === "function" ? source(sessionId) : source);
  const mode = options.mode ?? "agentic";
  const topK = options.topK ?? 5;
  const template = options.hintTemplate ?? DEFAULT_HINT_TEMPLATE;
  if (!template.includes("{excerpts}"))
    throw new RagError("ragMiddleware: hintTemplate must contain {excerpts}");
  const search = {
    ...(options.scoreThreshold !== undefined ? { scoreThreshold: options.scoreThreshold } : {}),
    ...(options.searchMode ? { searchMode: options.searchMode } : {}),
  };
  const name = options.name ?? "rag";
  const taint = options.taint ?? "a RAG document";

  if (mode === "agentic") {
    const listed = names && names.length > 0 ? names : undefined;
    return {
      name,
      tools: [searchKnowledgeTool(source, { topK, ...search, ...(names ? { names } : {}) })],
      systemPrompt: (prompt) =>
        `${prompt}\n\nUse the ${SEARCH_KNOWLEDGE_TOOL} tool to look facts up in ${listed ? "these knowledge bases" : "the knowledge bases"} before answering, and cite the excerpts you use${listed ? `: ${listed.join(", ")}` : ""}.`.trim(),
    };
  }

  const data = (ctx: MiddlewareContext) => ctx.data<StaticData>(() => ({ hintIds: [], sources: [] }));
  return {
    name,
    tools: [],
    async beforeReasoning(iteration, ctx) {
      if (iteration !== 1) return;
      const query = userText(ctx).trim();
      if (query === "") return;
      const bases = await basesOf(ctx.state.sessionId);
      if (bases.length === 0) return;
      const hits = await searchAll(bases, [query], { topK, ...search });
      const state = data(ctx);
      state.sources = hits.map((hit) => citationOf(hit.chunk));
      if (hits.length === 0) return;
      const blockId = newId("blk");
      if (!options.persistHint) state.hintIds.push(blockId);
      if (taint !== false)
        taintReply(ctx.state, `${taint} (${[...new Set(hits.map((h) => h.knowledgeBase))].join(", ")})`);
      ctx.emit({
        type: "HINT_BLOCK",
        blockId,
        text: template.replace("{excerpts}", formatExcerpts(hits.map((h) => h.chunk))),
      });
    },
    async *onReply(input, ctx, next) {
      try {
        yield* next(input);
      } finally {
        const state = data(ctx);
        if (state.hintIds.length > 0) {
          const ids = new Set(state.hintIds);
          for (const msg of ctx.state.context) {
            if (msg.content.some((block) => ids.has(block.id)))
              msg.content = msg.content.filter((block) => !ids.has(block.id));
          }
          state.hintIds = [];
        }
      }
    },
  };
}
