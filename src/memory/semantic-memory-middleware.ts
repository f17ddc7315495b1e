import { SpanStatusCode, type Tracer, trace } from "@opentelemetry/api";
import type { Middleware, MiddlewareContext } from "../agent/index.js";
import { type Msg, newId, toErrorInfo } from "../message/index.js";
import { GenAI } from "../trace/gen-ai.js";
import { assertScope, scopeKey } from "./scope.js";
import type {
  LongTermMemory,
  MemoryKind,
  MemoryRecord,
  MemoryScope,
  RecordResult,
  ScoredMemory,
} from "./types.js";

/** Whose memories a session reads and feeds: one scope for all, or one per session (e.g. its owner). */
export type ScopeSource = MemoryScope | ((ctx: MiddlewareContext) => MemoryScope | Promise<MemoryScope>);

export interface SemanticMemoryMiddlewareOptions {
  memory: LongTermMemory;
  scope: ScopeSource;
  /** Memories injected before the first reasoning step of a reply (default 5; 0 = record only). */
  topK?: number;
  /** Drop retrieved memories scored below this (default 0: anything related). */
  minScore?: number;
  /**
   * The always-on profile: memories of these kinds are injected before every reply whatever its
   * wording, newest first, up to `max` (default `{ kinds: ["preference"], max: 5 }`), beside the
   * `topK` most related ones. "Answers in French" then reaches "Give me a dinner recipe", which
   * shares no word with it. `false`: similarity only.
   */
  profile?: { kinds?: readonly MemoryKind[]; max?: number } | false;
  /** Learn from exchanges after each completed reply (default true; false = retrieve only). */
  record?: boolean;
  /** Called for every failure (they never fail the reply); default: counted in `usage.failures` only. */
  onError?(error: unknown, stage: "retrieve" | "record"): void;
  /** Called after each extraction with what changed. */
  onRecord?(result: RecordResult, ctx: { sessionId: string; replyId: string }): void;
  /** Spans for each extraction (default: the global tracer `agentscope`). */
  tracer?: Tracer;
  /** Middleware name (default `semantic_memory`). */
  name?: string;
}

/** What extraction cost and did, over the middleware's lifetime (all sessions). */
export interface MemoryUsage {
  extractions: number;
  failures: number;
  inputTokens: number;
  outputTokens: number;
  embeddingTokens: number;
  added: number;
  updated: number;
  deleted: number;
}

export interface SemanticMemoryMiddleware extends Middleware {
  readonly usage: MemoryUsage;
  /** Resolves when every extraction started so far has finished (tests, graceful shutdown). */
  flush(): Promise<void>;
}

export const MEMORY_HINT_HEADER =
  "What you remember about this user from earlier conversations (use it where it helps; do not mention this note):";

/** The hint text for retrieved memories. */
export function memoryHint(memories: ScoredMemory[]): string {
  return `${MEMORY_HINT_HEADER}\n${memories.map((memory) => `- ${memory.text}`).join("\n")}`;
}

/**
 * Semantic long-term memory for an agent. Before the first reasoning step of a reply it injects
 * the user's profile (preferences, newest first, whatever the question says) and the memories most
 * related to the user's input as a hint (HINT_BLOCK, which the model sees as a note before it answers). After a reply completes, it hands the exchange to
 * `memory.record` in the background: the reply's stream has ended before extraction starts, its
 * usage is counted in `usage` and traced as a `memory.record` span, and a failure is reported to
 * `onError`, never to the reply.
 */
export function semanticMemoryMiddleware(options: SemanticMemoryMiddlewareOptions): SemanticMemoryMiddleware {
  const topK = options.topK ?? 5;
  if (!Number.isInteger(topK) || topK < 0) {
    throw new RangeError(`semanticMemoryMiddleware: topK must be an integer ≥ 0, got ${topK}`);
  }
  const profile = profileOf(options.profile);
  const tracer = options.tracer ?? trace.getTracer("agentscope");
  const pending = new Set<Promise<void>>();
  const usage: MemoryUsage = {
    extractions: 0,
    failures: 0,
    inputTokens: 0,
    outputTokens: 0,
    embeddingTokens: 0,
    added: 0,
    updated: 0,
    deleted: 0,
  };
  const fail = (error: unknown, stage: "retrieve" | "record") => {
    usage.failures += 1;
    try {
      options.onError?.(error, stage);
    } catch {
      // A throwing error handler must not fail the reply either.
    }
  };
  const scopeOf = async (ctx: MiddlewareContext): Promise<MemoryScope> =>
    assertScope(typeof options.scope === "function" ? await options.scope(ctx) : options.scope);

  const recordExchange = async (msgs: Msg[], scope: MemoryScope, sessionId: string, replyId: string) => {
    const span = tracer.startSpan(`memory.record`, {
      attributes: { [GenAI.operationName]: "memory.record", [GenAI.conversationId]: sessionId },
    });
    try {
      const result = await options.memory.record(msgs, scope, { source: { sessionId, replyId } });
      usage.extractions += 1;
      usage.inputTokens += result.usage.inputTokens;
      usage.outputTokens += result.usage.outputTokens;
      usage.embeddingTokens += result.embeddingTokens;
      usage.added += result.added.length;
      usage.updated += result.updated.length;
      usage.deleted += result.deleted.length;
      span.setAttributes({
        [GenAI.inputTokens]: result.usage.inputTokens,
        [GenAI.outputTokens]: result.usage.outputTokens,
        "agentscope.memory.embedding_tokens": result.embeddingTokens,
        "agentscope.memory.added": result.added.length,
        "agentscope.memory.updated": result.updated.length,
        "agentscope.memory.deleted": result.deleted.length,
      });
      options.onRecord?.(result, { sessionId, replyId });
    } catch (error) {
      const info = toErrorInfo(error);
      span.setStatus({ code: SpanStatusCode.ERROR, message: info.message });
      span.setAttribute(GenAI.errorType, info.type);
      fail(error, "record");
    } finally {
      span.end();
    }
  };

  /** The last extraction queued per scope: one scope's extractions run one after another. */
  const queues = new Map<string, Promise<void>>();
  const enqueue = (scope: MemoryScope, run: () => Promise<void>): Promise<void> => {
    const key = scopeKey(scope);
    const next = (queues.get(key) ?? Promise.resolve()).then(run);
    queues.set(key, next);
    return next.finally(() => {
      if (queues.get(key) === next) queues.delete(key);
    });
  };

  /**
   * Starts recording in the background; the caller never waits for it. Extractions of one scope are
   * serialised in this process, so two sessions ending together do not both add the same memory.
   */
  const startRecording = (ctx: MiddlewareContext, replyId: string) => {
    const exchange = exchangeOf(ctx.state.context, replyId);
    if (exchange.length === 0) return;
    const sessionId = ctx.state.sessionId;
    const job = scopeOf(ctx)
      .then((scope) => enqueue(scope, () => recordExchange(exchange, scope, sessionId, replyId)))
      .catch((error) => fail(error, "record"));
    const tracked = job.finally(() => pending.delete(tracked));
    pending.add(tracked);
  };

  const middleware: SemanticMemoryMiddleware = {
    name: options.name ?? "semantic_memory",
    usage,

    async flush() {
      while (pending.size > 0) await Promise.all([...pending]);
    },

    async beforeReasoning(iteration, ctx) {
      if (iteration !== 1 || topK === 0) return;
      const query = lastUserText(ctx.state.context);
      if (query === "" && !profile) return;
      try {
        const scope = await scopeOf(ctx);
        const [always, related] = await Promise.all([
          profile ? options.memory.list(scope, { kinds: profile.kinds }) : [],
          query === ""
            ? []
            : options.memory.retrieve(query, scope, { topK, minScore: options.minScore ?? 0 }),
        ]);
        const found = profile ? withProfile(always, related, profile) : related;
        if (found.length > 0)
          ctx.emit({ type: "HINT_BLOCK", blockId: newId("blk"), text: memoryHint(found) });
      } catch (error) {
        fail(error, "retrieve");
      }
    },

    async *onReply(input, ctx, next) {
      let completedReply: string | undefined;
      try {
        for await (const event of next(input)) {
          if (event.type === "REPLY_END" && event.finishedReason === "completed")
            completedReply = event.replyId;
          yield event;
        }
      } finally {
        // The reply's stream is over (its last event delivered): learn from it off the critical path.
        if (completedReply !== undefined && options.record !== false) startRecording(ctx, completedReply);
      }
    },
  };
  return middleware;
}

interface Profile {
  kinds: readonly MemoryKind[];
  max: number;
}

function profileOf(option: SemanticMemoryMiddlewareOptions["profile"]): Profile | undefined {
  if (option === false) return undefined;
  const max = option?.max ?? 5;
  if (!Number.isInteger(max) || max < 0)
    throw new RangeError(`semanticMemoryMiddleware: profile.max must be an integer ≥ 0, got ${max}`);
  const kinds = option?.kinds ?? ["preference"];
  return max === 0 || kinds.length === 0 ? undefined : { kinds, max };
}

/**
 * The profile memories (of the profile's kinds, newest first, at most `max`; filtered here too, for
 * a LongTermMemory whose `list` ignores `kinds`), then the related ones not already among them.
 */
function withProfile(always: MemoryRecord[], related: ScoredMemory[], profile: Profile): ScoredMemory[] {
  const chosen = always
    .filter((memory) => profile.kinds.includes(memory.kind))
    .sort((a, b) => b.updatedAt.localeCompare(a.updatedAt) || a.id.localeCompare(b.id))
    .slice(0, profile.max);
  const ids = new Set(chosen.map((memory) => memory.id));
  const score = (memory: MemoryRecord) => related.find((hit) => hit.id === memory.id)?.score ?? 0;
  return [
    ...chosen.map((memory) => ({ ...memory, score: score(memory) })),
    ...related.filter((memory) => !ids.has(memory.id)),
  ];
}

/** The text of the newest user message (what the reply answers). */
function lastUserText(context: Msg[]): string {
  const msg = context.findLast((m) => m.role === "user");
  if (!msg) return "";
  return msg.content
    .map((block) => (block.type === "text" ? block.text : ""))
    .join("\n")
    .trim();
}

/** The user messages a reply answered, then the reply itself (a copy, safe from later changes). */
function exchangeOf(context: Msg[], replyId: string): Msg[] {
  const at = context.findLastIndex((m) => m.id === replyId);
  if (at < 0) return [];
  let start = at;
  while (start > 0 && context[start - 1]!.role === "user") start -= 1;
  return structuredClone(context.slice(start, at + 1));
}
