import type { Trajectory } from "../trajectory.js";
import type { Scorer, ScorerOptions } from "./scorer.js";

/** Prices in US dollars per million tokens, to turn usage into cost. */
export interface TokenPrices {
  inputPerMTok: number;
  outputPerMTok: number;
}

/** The cost of a trajectory's tokens at these prices. */
export function costOf(trajectory: Pick<Trajectory, "usage">, prices: TokenPrices): number {
  return (
    (trajectory.usage.inputTokens * prices.inputPerMTok +
      trajectory.usage.outputTokens * prices.outputPerMTok) /
    1_000_000
  );
}

/** Upper limits for one run; each given one must hold. */
export interface RunLimits {
  tokens?: number;
  inputTokens?: number;
  outputTokens?: number;
  /** Needs `prices`. */
  costUsd?: number;
  latencyMs?: number;
  /** Model calls. */
  iterations?: number;
}

/** Passes when every given limit holds; the reason names each one exceeded with its value. */
export function withinLimits(
  limits: RunLimits,
  options: ScorerOptions & { prices?: TokenPrices } = {},
): Scorer {
  const { prices, ...rest } = options;
  if (limits.costUsd !== undefined && !prices)
    throw new TypeError("withinLimits: a costUsd limit needs `prices`");
  return {
    name: "within_limits",
    ...rest,
    score({ run }) {
      const t = run.trajectory;
      const actual: Record<keyof RunLimits, number> = {
        tokens: t.usage.inputTokens + t.usage.outputTokens,
        inputTokens: t.usage.inputTokens,
        outputTokens: t.usage.outputTokens,
        costUsd: prices ? costOf(t, prices) : 0,
        latencyMs: t.latencyMs,
        iterations: t.turns.length,
      };
      const over = (Object.keys(limits) as Array<keyof RunLimits>).filter(
        (key) => limits[key] !== undefined && actual[key] > limits[key]!,
      );
      return over.length === 0
        ? { value: 1, reason: "within every limit" }
        : {
            value: 0,
            reason: over.map((key) => `${key} ${round(actual[key])} > ${limits[key]}`).join(", "),
            details: actual,
          };
    },
  };
}

const round = (n: number) => (Number.isInteger(n) ? n : Number(n.toPrecision(4)));
