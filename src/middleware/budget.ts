import type { Middleware, MiddlewareContext } from "../agent/index.js";
import type { AgentEvent } from "../event/index.js";

export interface BudgetOptions {
  /** Input plus output tokens over every model call of one reply. */
  maxTokens?: number;
  /**
   * US dollars over every model call of one reply, from the calls' `cost` (the Agent needs a
   * `pricing` table). A call without a price stops the reply: a money budget cannot be kept blind.
   */
  maxUsd?: number;
  /** Tool calls run in one reply. */
  maxToolCalls?: number;
  /** Running time of one reply; time spent paused (waiting for a user or an external result) does not count. */
  maxWallTimeMs?: number;
  /** Keys this middleware's data in the session state (default `budget`); give each instance its own. */
  name?: string;
  /** The clock (default `Date.now`), for tests. */
  now?: () => number;
}

/** What the budget keeps per session, in `state.middleware[name]` (plain JSON, reset at each new reply). */
export type BudgetUsage = {
  replyId: string;
  tokens: number;
  /** Dollars the priced calls cost (kept only with `maxUsd`). */
  usd?: number;
  /** Calls that had no price, or no cost at all (kept only with `maxUsd`). */
  unpriced?: string[];
  toolCalls: number;
  /** Running time counted up to `markedAt`. */
  elapsedMs: number;
  markedAt: number;
  /** The reason given when this reply was stopped, so it is stopped once. */
  stoppedFor?: string;
};

/**
 * Stops a reply (REQUEST_STOP, then REPLY_END `stopped` with the reason) once it has used its budget
 * of tokens, tool calls or running time. Checked before each reasoning step and after each tool call.
 * Counters live in the session state, so one agent can serve many sessions at once.
 */
export function budgetMiddleware(options: BudgetOptions): Middleware {
  for (const key of ["maxTokens", "maxUsd", "maxToolCalls", "maxWallTimeMs"] as const) {
    const value = options[key];
    if (value !== undefined && !(Number.isFinite(value) && value >= 0)) {
      throw new RangeError(`budgetMiddleware: ${key} must be a number ≥ 0, got ${String(value)}`);
    }
  }
  const now = options.now ?? Date.now;

  /** This reply's counters; a new reply id starts them again. */
  const usage = (ctx: MiddlewareContext): BudgetUsage => {
    const data = ctx.data<BudgetUsage>(() => fresh(ctx.replyId, now()));
    if (data.replyId !== ctx.replyId) {
      for (const key of Object.keys(data)) delete (data as Record<string, unknown>)[key];
      Object.assign(data, fresh(ctx.replyId, now()));
    }
    return data;
  };

  const check = (ctx: MiddlewareContext): void => {
    const data = usage(ctx);
    const at = now();
    data.elapsedMs += Math.max(0, at - data.markedAt);
    data.markedAt = at;
    if (data.stoppedFor !== undefined) return;
    const reason = overBudget(data, options);
    if (reason === undefined) return;
    data.stoppedFor = reason;
    ctx.requestStop(reason);
  };

  return {
    name: options.name ?? "budget",
    beforeReasoning(_iteration, ctx) {
      check(ctx);
    },
    async onToolCall(request, ctx, next) {
      try {
        return await next(request);
      } finally {
        usage(ctx).toolCalls += 1;
        check(ctx);
      }
    },
    onEvent(event: AgentEvent, ctx) {
      switch (event.type) {
        case "REPLY_START":
          usage(ctx);
          return;
        case "MODEL_CALL_END": {
          const data = usage(ctx);
          data.tokens += event.inputTokens + event.outputTokens;
          if (options.maxUsd !== undefined && event.error === undefined) countCost(data, event);
          return;
        }
        case "USER_CONFIRM_RESULT":
        case "EXTERNAL_EXECUTION_RESULT":
          // A resumed reply: the time it spent paused is not running time.
          usage(ctx).markedAt = now();
          return;
      }
    },
  };
}

/** Adds a call's cost to the reply's; a call without a priced cost is remembered as unpriced. */
function countCost(data: BudgetUsage, event: Extract<AgentEvent, { type: "MODEL_CALL_END" }>): void {
  const cost = event.cost;
  data.usd = (data.usd ?? 0) + (cost?.pricedUsd ?? 0);
  const unpriced =
    cost === undefined ? [`${event.modelName} (the agent has no pricing table)`] : (cost.unpriced ?? []);
  if (unpriced.length > 0) data.unpriced = [...new Set([...(data.unpriced ?? []), ...unpriced])];
}

function fresh(replyId: string, at: number): BudgetUsage {
  return { replyId, tokens: 0, toolCalls: 0, elapsedMs: 0, markedAt: at };
}

/** Why the reply is over budget, or undefined. */
function overBudget(data: BudgetUsage, limits: BudgetOptions): string | undefined {
  const { maxTokens, maxToolCalls, maxWallTimeMs } = limits;
  if (maxTokens !== undefined && data.tokens >= maxTokens) {
    return `token budget reached: this reply used ${data.tokens} tokens (limit ${maxTokens})`;
  }
  if (limits.maxUsd !== undefined) {
    if (data.unpriced?.length) {
      return `money budget cannot be kept: no price for ${data.unpriced.join(", ")} (add it to the pricing table)`;
    }
    if ((data.usd ?? 0) >= limits.maxUsd) {
      return `money budget reached: this reply cost $${(data.usd ?? 0).toFixed(6)} (limit $${limits.maxUsd})`;
    }
  }
  if (maxToolCalls !== undefined && data.toolCalls >= maxToolCalls) {
    return `tool call budget reached: this reply ran ${data.toolCalls} tool calls (limit ${maxToolCalls})`;
  }
  if (maxWallTimeMs !== undefined && data.elapsedMs >= maxWallTimeMs) {
    return `time budget reached: this reply ran for ${Math.round(data.elapsedMs)} ms (limit ${maxWallTimeMs} ms)`;
  }
  return undefined;
}
