import type { AgentEvent } from "../event/index.js";
import type { Msg } from "../message/index.js";
import type { ChatChunk } from "../model/core.js";
import type { PermissionDecision } from "../permission/index.js";
import type { AgentState } from "../state/index.js";
import type {
  AgentEventInit,
  Middleware,
  MiddlewareContext,
  ModelCallRequest,
  PermissionRequest,
  ToolCallOutcome,
  ToolCallRequest,
} from "./middleware.js";

type Hook<Req, Res> = (request: Req, ctx: MiddlewareContext, next: (request: Req) => Res) => Res;

/** Wraps `last` in the hooks of every middleware that has one; the first registered is outermost. */
export function composeHooks<Req, Res>(
  middlewares: readonly Middleware[],
  pick: (middleware: Middleware) => Hook<Req, Res> | undefined,
  contextFor: (middleware: Middleware) => MiddlewareContext,
  last: (request: Req) => Res,
): (request: Req) => Res {
  let next = last;
  for (let i = middlewares.length - 1; i >= 0; i--) {
    const middleware = middlewares[i]!;
    const hook = pick(middleware);
    if (!hook) continue;
    const inner = next;
    const ctx = contextFor(middleware);
    next = (request: Req) => hook.call(middleware, request, ctx, inner);
  }
  return next;
}

export interface RunHandle {
  state: AgentState;
  agentName: string;
  replyId(): string;
  emit(event: AgentEventInit): void;
  requestStop(reason: string, metadata?: Record<string, unknown>): void;
}

/** The middleware chains of one reply, composed once (a reply of an agent without middleware builds none). */
export class MiddlewareRunner {
  readonly ctx: MiddlewareContext;
  readonly callModel: (request: ModelCallRequest) => AsyncIterable<ChatChunk>;
  readonly callTool: (request: ToolCallRequest) => Promise<ToolCallOutcome>;
  readonly decide: (request: PermissionRequest) => Promise<PermissionDecision>;
  private readonly eventHooks: Middleware[];

  constructor(
    private readonly middlewares: readonly Middleware[],
    handle: RunHandle,
    decide: (request: PermissionRequest) => Promise<PermissionDecision>,
    /** The end of the tool chain: runs the tool under its decision (`request.decided`). */
    runTool: (request: ToolCallRequest) => Promise<ToolCallOutcome>,
  ) {
    const state = handle.state;
    this.ctx = {
      agentName: handle.agentName,
      state,
      get replyId() {
        return handle.replyId();
      },
      data: () => {
        throw new Error("ctx.data() is only available inside a middleware hook");
      },
      emit: (event) => handle.emit(event),
      requestStop: (reason, metadata) => handle.requestStop(reason, metadata),
    };
    const contextFor = (m: Middleware) => this.contextFor(m);
    this.callModel = composeHooks(
      middlewares,
      (m) => m.onModelCall,
      contextFor,
      (r) => r.model.stream(r.messages, r.options),
    );
    this.callTool = composeHooks(middlewares, (m) => m.onToolCall, contextFor, runTool);
    this.decide = composeHooks(middlewares, (m) => m.onPermission, contextFor, decide);
    this.eventHooks = middlewares.filter((m) => m.onEvent);
  }

  systemPrompt(prompt: string): string {
    let out = prompt;
    for (const m of this.middlewares) if (m.systemPrompt) out = m.systemPrompt(out, this.contextFor(m));
    return out;
  }

  async beforeReasoning(iteration: number): Promise<void> {
    for (const m of this.middlewares)
      if (m.beforeReasoning) await m.beforeReasoning(iteration, this.contextFor(m));
  }

  async afterReasoning(reply: Msg): Promise<void> {
    for (const m of this.middlewares) if (m.afterReasoning) await m.afterReasoning(reply, this.contextFor(m));
  }

  /** Whether any middleware watches events (checked once, so the hot path skips the loop). */
  get watchesEvents(): boolean {
    return this.eventHooks.length > 0;
  }

  onEvent(event: AgentEvent): void {
    for (const m of this.eventHooks) m.onEvent!(event, this.contextFor(m));
  }

  private readonly contexts = new Map<Middleware, MiddlewareContext>();

  /** The context a given middleware sees: `data()` is keyed by its name. */
  contextFor(middleware: Middleware): MiddlewareContext {
    let ctx = this.contexts.get(middleware);
    if (!ctx) {
      const base = this.ctx;
      const store = base.state.middleware;
      ctx = Object.create(base) as MiddlewareContext;
      ctx.data = <T extends Record<string, unknown>>(initial: () => T): T => {
        const existing = store[middleware.name];
        if (existing !== undefined) return existing as T;
        const created = initial();
        store[middleware.name] = created;
        return created;
      };
      this.contexts.set(middleware, ctx);
    }
    return ctx;
  }
}
