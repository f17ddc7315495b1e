import type { Middleware, MiddlewareContext } from "../agent/index.js";
import type { AgentEvent } from "../event/index.js";
import type { SpendLimit, SpendUnit } from "../protocol/budget-types.js";
import type { SpendCounter } from "../state/spend-counter.js";
import { describeLimit, formatSpend, type SpendLine, spendLines, toUnits } from "./spend-limits.js";
import { inheritedLines, withParentLines } from "./spend-tree.js";

export interface SpendBudgetOptions {
  /** Where the totals live: in memory for one process, Redis or PostgreSQL for replicas. */
  counter: SpendCounter;
  limits: readonly SpendLimit[];
  /**
   * The user a session belongs to (for `user` limits; asked once per reply); without it those
   * limits do not apply. The service passes the session's owner.
   */
  userOf?: (ctx: MiddlewareContext) => string | undefined | Promise<string | undefined>;
  /**
   * Reserved in every hard line before each model call, settled to the real spend when it ends
   * (in dollars or tokens). With a reservation at least one call's spend, concurrent replies (on any
   * replica) can never pass a hard limit together; without one (default), the call that crosses it
   * completes and the next one stops.
   */
  reservePerCall?: Partial<Record<SpendUnit, number>>;
  /** Keys this middleware's data in the session state (default `spend`). */
  name?: string;
  now?: () => number;
}

/** The typed reason on REQUEST_STOP (`metadata.budgetStop`) when a budget ends a reply. */
export interface BudgetStop {
  /** `hard_limit` reached; the person said no at the `soft_limit`; a money limit met a call with `no_price`. */
  kind: "hard_limit" | "soft_limit_declined" | "no_price";
  limit: SpendLimit;
  /** What the line had spent, in dollars or tokens. */
  spent?: number;
  reason: string;
}

/** What the middleware keeps per session (plain JSON). */
type SpendData = {
  /** The reply the user was asked for, and the answer. */
  user?: { replyId: string; id?: string };
  /** Lines whose soft limit the person accepted in this session. */
  acknowledged: string[];
  /** A soft limit reached and not yet accepted: the next tool call asks. */
  softReached?: { key: string; reason: string };
  /** Calls that asked for a soft limit, by id, with the line's key. */
  softAsks?: Record<string, string>;
  /** Reserved before the model call in flight, by key, in counter units. */
  reserved?: Record<string, number>;
};

const SOFT_ASK = "spend budget: ";

/**
 * Budgets in money or tokens per reply, session, user and period, and per sub-agent tree, kept in
 * atomic counters every replica shares. Checked before each model call: a hard limit reached stops the
 * reply (REQUEST_STOP with `metadata.budgetStop`); a soft limit reached makes the next tool call ask
 * the person (a confirmation like any other; a no stops the reply). A sub-agent run inside a tool
 * call of this agent charges this reply's lines too (give it a spend budget on the same counter).
 */
export function spendBudgetMiddleware(options: SpendBudgetOptions): Middleware {
  const { counter, limits } = options;
  for (const limit of limits) {
    for (const key of ["soft", "hard"] as const) {
      const value = limit[key];
      if (value !== undefined && !(Number.isFinite(value) && value >= 0)) {
        throw new RangeError(`spendBudgetMiddleware: ${key} must be a number ≥ 0, got ${String(value)}`);
      }
    }
  }
  const now = options.now ?? Date.now;
  const data = (ctx: MiddlewareContext) => ctx.data<SpendData>(() => ({ acknowledged: [] }));

  /** This reply's lines and those it inherits from the reply whose tool runs it (one per key). */
  const linesOf = (ctx: MiddlewareContext): SpendLine[] => {
    const userId = data(ctx).user?.id;
    const subject = { sessionId: ctx.state.sessionId, replyId: ctx.replyId, ...(userId ? { userId } : {}) };
    const byKey = new Map<string, SpendLine>();
    for (const line of [...inheritedLines(), ...spendLines(limits, subject, now())]) {
      if (!byKey.has(line.key)) byKey.set(line.key, line);
    }
    return [...byKey.values()];
  };

  const stop = (ctx: MiddlewareContext, stopped: BudgetStop) =>
    ctx.requestStop(stopped.reason, { budgetStop: stopped });

  const hardStop = (ctx: MiddlewareContext, line: SpendLine, total: number): void => {
    const { unit, hard } = line.limit;
    stop(ctx, {
      kind: "hard_limit",
      limit: line.limit,
      spent: unit === "usd" ? total / 1_000_000 : total,
      reason: `${describeLimit(line.limit)} reached: spent ${formatSpend(unit, total)} of ${formatSpend(unit, toUnits(unit, hard!))}`,
    });
  };

  /** Before a model call: reserve (or read) every line; stop at a hard limit, note a soft one. */
  const admit = async (ctx: MiddlewareContext): Promise<void> => {
    const mine = data(ctx);
    if (mine.user?.replyId !== ctx.replyId) {
      const id = await options.userOf?.(ctx);
      mine.user = id === undefined ? { replyId: ctx.replyId } : { replyId: ctx.replyId, id };
    }
    const lines = linesOf(ctx);
    const reserved: Record<string, number> = {};
    const totals = new Map<string, number>();
    for (const line of lines) {
      const reserve = toUnits(line.limit.unit, options.reservePerCall?.[line.limit.unit] ?? 0);
      if (line.limit.hard === undefined || reserve === 0) continue;
      const limit = toUnits(line.limit.unit, line.limit.hard);
      const result = await counter.add(line.key, reserve, { limit, ...ttl(line) });
      if (!result.added) {
        await release(reserved, lines);
        return hardStop(ctx, line, result.total);
      }
      reserved[line.key] = reserve;
      totals.set(line.key, result.total - reserve);
    }
    if (Object.keys(reserved).length > 0) mine.reserved = reserved;
    const unread = lines.filter((line) => !totals.has(line.key));
    const read = await counter.read(unread.map((line) => line.key));
    for (const [i, line] of unread.entries()) totals.set(line.key, read[i] ?? 0);
    for (const line of lines) {
      const { unit, hard, soft } = line.limit;
      const total = totals.get(line.key) ?? 0;
      if (hard !== undefined && !(line.key in reserved) && total >= toUnits(unit, hard)) {
        await release(reserved, lines);
        delete mine.reserved;
        return hardStop(ctx, line, total);
      }
      if (soft !== undefined && total >= toUnits(unit, soft) && !mine.acknowledged.includes(line.key)) {
        mine.softReached ??= {
          key: line.key,
          reason: `${SOFT_ASK}${describeLimit(line.limit)} reached its soft limit (spent ${formatSpend(unit, total)} of ${formatSpend(unit, toUnits(unit, soft))}): go on?`,
        };
      }
    }
  };

  const release = async (reserved: Record<string, number>, lines: readonly SpendLine[]) => {
    for (const line of lines) {
      const units = reserved[line.key];
      if (units) await counter.add(line.key, -units);
    }
  };

  /** A model call ended: its real spend replaces what was reserved for it, in every line. */
  const charge = async (event: Extract<AgentEvent, { type: "MODEL_CALL_END" }>, ctx: MiddlewareContext) => {
    const mine = data(ctx);
    const reserved = mine.reserved ?? {};
    delete mine.reserved;
    const tokens = event.inputTokens + event.outputTokens;
    const usd = event.cost?.pricedUsd ?? 0;
    let unpriced: SpendLine | undefined;
    for (const line of linesOf(ctx)) {
      const unit = line.limit.unit;
      const spent = unit === "usd" ? toUnits(unit, usd) : tokens;
      const amount = spent - (reserved[line.key] ?? 0);
      if (amount !== 0) await counter.add(line.key, amount, ttl(line));
      const noPrice =
        event.error === undefined && (event.cost === undefined || (event.cost.unpriced ?? []).length > 0);
      if (unit === "usd" && noPrice) unpriced ??= line;
    }
    if (unpriced) {
      const models =
        event.cost?.unpriced?.join(", ") ?? `${event.modelName} (the agent has no pricing table)`;
      stop(ctx, {
        kind: "no_price",
        limit: unpriced.limit,
        reason: `${describeLimit(unpriced.limit)} cannot be kept: no price for ${models}`,
      });
    }
  };

  return {
    name: options.name ?? "spend",
    async beforeReasoning(_iteration, ctx) {
      await admit(ctx);
    },
    async *onReply(input, ctx, next) {
      let own: string | undefined;
      for await (const event of next(input)) {
        own ??= event.replyId;
        if (event.replyId === own) {
          if (event.type === "MODEL_CALL_END" && event.metadata?.subRunUsage !== true)
            await charge(event, ctx);
          if (event.type === "REPLY_END") {
            const mine = data(ctx);
            if (mine.reserved) await release(mine.reserved, linesOf(ctx));
            delete mine.reserved;
            delete mine.softReached;
          }
        }
        yield event;
      }
    },
    async onPermission(request, ctx, next) {
      const decision = await next(request);
      const soft = data(ctx).softReached;
      if (decision.behavior === "deny" || soft === undefined) return decision;
      return { behavior: "ask", reason: soft.reason, safety: true };
    },
    onToolCall(request, ctx, next) {
      return withParentLines(linesOf(ctx), () => next(request));
    },
    onEvent(event, ctx) {
      const mine = data(ctx);
      if (event.type === "REQUIRE_USER_CONFIRM" && mine.softReached) {
        for (const call of event.toolCalls) {
          if (!call.reason?.startsWith(SOFT_ASK)) continue;
          mine.softAsks ??= {};
          mine.softAsks[call.id] = mine.softReached.key;
        }
      } else if (event.type === "USER_CONFIRM_RESULT" && mine.softAsks) {
        for (const answer of event.confirmResults) {
          const key = mine.softAsks[answer.toolCall.id];
          if (key === undefined) continue;
          if (answer.confirmed) {
            if (!mine.acknowledged.includes(key)) mine.acknowledged.push(key);
            if (mine.softReached?.key === key) delete mine.softReached;
          } else {
            const line = linesOf(ctx).find((l) => l.key === key);
            stop(ctx, {
              kind: "soft_limit_declined",
              limit: line?.limit ?? { scope: "reply", unit: "usd" },
              reason: `the person chose not to go on past ${line ? describeLimit(line.limit) : "a budget"}'s soft limit`,
            });
          }
        }
        delete mine.softAsks;
      }
    },
  };
}

function ttl(line: SpendLine): { ttlSeconds?: number } {
  return line.ttlSeconds === undefined ? {} : { ttlSeconds: line.ttlSeconds };
}
