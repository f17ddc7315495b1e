import type {
  SpendLimit,
  SpendPeriod,
  SpendScope,
  SpendStatus,
  SpendUnit,
} from "../protocol/budget-types.js";
import type { SpendCounter } from "../state/spend-counter.js";

/** Who is spending: the ids the limits' keys are made of. */
export interface SpendSubject {
  sessionId: string;
  replyId: string;
  /** Without it, `user` limits do not apply. */
  userId?: string;
}

/** A limit bound to the counter key it counts in, its bounds in counter units. */
export interface SpendLine {
  key: string;
  limit: SpendLimit;
  ttlSeconds?: number;
}

const DAY_SECONDS = 86_400;

/** Counter units: micro-dollars (integers add exactly on every store) or tokens. */
export function toUnits(unit: SpendUnit, amount: number): number {
  return unit === "usd" ? Math.round(amount * 1_000_000) : Math.round(amount);
}

export function fromUnits(unit: SpendUnit, units: number): number {
  return unit === "usd" ? units / 1_000_000 : units;
}

/** The lines `limits` make for `subject` at time `at`; a user limit without a user makes none. */
export function spendLines(limits: readonly SpendLimit[], subject: SpendSubject, at: number): SpendLine[] {
  const lines: SpendLine[] = [];
  for (const limit of limits) {
    const owner = ownerOf(limit.scope, subject);
    if (owner === undefined) continue;
    const period = limit.scope === "session" || limit.scope === "user" ? limit.period : undefined;
    const key = `${limit.unit}:${limit.scope}:${owner}${period ? `:${periodOf(period, at)}` : ""}`;
    const ttlSeconds =
      period === "day"
        ? 2 * DAY_SECONDS
        : period === "month"
          ? 32 * DAY_SECONDS
          : limit.scope === "reply" || limit.scope === "tree"
            ? 2 * DAY_SECONDS
            : undefined;
    lines.push(ttlSeconds === undefined ? { key, limit } : { key, limit, ttlSeconds });
  }
  return lines;
}

function ownerOf(scope: SpendScope, subject: SpendSubject): string | undefined {
  switch (scope) {
    case "reply":
    case "tree":
      return subject.replyId;
    case "session":
      return subject.sessionId;
    case "user":
      return subject.userId;
  }
}

/** `d2026-12-03` or `m2026-12`, in UTC. */
function periodOf(period: SpendPeriod, at: number): string {
  const iso = new Date(at).toISOString();
  return period === "day" ? `d${iso.slice(0, 10)}` : `m${iso.slice(0, 7)}`;
}

/** "the user's daily money budget", for reasons a person reads. */
export function describeLimit(limit: SpendLimit): string {
  const whose = {
    reply: "this reply's",
    session: "this session's",
    user: "the user's",
    tree: "this reply's (with its sub-agents)",
  }[limit.scope];
  const period = limit.period === "day" ? " daily" : limit.period === "month" ? " monthly" : "";
  return `${whose}${period} ${limit.unit === "usd" ? "money" : "token"} budget`;
}

/** An amount as a person reads it: `$0.001200` or `1200 tokens`. */
export function formatSpend(unit: SpendUnit, units: number): string {
  return unit === "usd" ? `$${fromUnits(unit, units).toFixed(6)}` : `${units} tokens`;
}

/** The standing of each of `limits` for `subject` (e.g. a user's daily budget), read from `counter`. */
export async function readSpend(
  counter: SpendCounter,
  limits: readonly SpendLimit[],
  subject: SpendSubject,
  at: number = Date.now(),
): Promise<SpendStatus[]> {
  const lines = spendLines(limits, subject, at);
  const totals = await counter.read(lines.map((line) => line.key));
  return lines.map((line, i) => {
    const { scope, unit, period, soft, hard } = line.limit;
    const spent = fromUnits(unit, totals[i] ?? 0);
    const status: SpendStatus = { scope, unit, spent };
    if (period !== undefined) status.period = period;
    if (soft !== undefined) status.soft = soft;
    if (hard !== undefined) {
      status.hard = hard;
      status.remaining = Math.max(0, hard - spent);
    }
    return status;
  });
}
