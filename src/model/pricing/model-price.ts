import { z } from "zod";

/**
 * The price of one model, in US dollars per million tokens, as the provider published it on `asOf`.
 * Input tokens read from the provider's prompt cache cost `cachedInput` (default: `input`), those
 * written to it `cacheWrite` (default: `input`); reasoning tokens, which providers count inside the
 * output, cost `reasoning` (default: `output`).
 */
export interface ModelPrice {
  input: number;
  output: number;
  cachedInput?: number;
  cacheWrite?: number;
  reasoning?: number;
  /** The date the price is from (YYYY-MM-DD): prices change, the figure says which one it used. */
  asOf: string;
}

const dollars = z.number().finite().nonnegative();

export const ModelPriceSchema = z
  .object({
    input: dollars,
    output: dollars,
    cachedInput: dollars.optional(),
    cacheWrite: dollars.optional(),
    reasoning: dollars.optional(),
    asOf: z
      .string()
      .regex(/^\d{4}-\d{2}-\d{2}$/, "must be a date as YYYY-MM-DD")
      .refine((day) => !Number.isNaN(Date.parse(day)), "must be a real date"),
  })
  .strict();

/** Token counts of one call, as MODEL_CALL_END and Msg.usage carry them (input includes cache reads and writes). */
export interface PricedUsage {
  inputTokens: number;
  outputTokens: number;
  cacheReadTokens?: number;
  cacheWriteTokens?: number;
  /** Reasoning tokens, counted inside `outputTokens`, where the provider reports them. */
  reasoningTokens?: number;
}

/** What `usage` costs at `price`, in US dollars. */
export function priceUsage(usage: PricedUsage, price: ModelPrice): number {
  const cacheRead = usage.cacheReadTokens ?? 0;
  const cacheWrite = usage.cacheWriteTokens ?? 0;
  const freshInput = Math.max(0, usage.inputTokens - cacheRead - cacheWrite);
  const reasoning = Math.min(usage.reasoningTokens ?? 0, usage.outputTokens);
  const perToken =
    freshInput * price.input +
    cacheRead * (price.cachedInput ?? price.input) +
    cacheWrite * (price.cacheWrite ?? price.input) +
    (usage.outputTokens - reasoning) * price.output +
    reasoning * (price.reasoning ?? price.output);
  return perToken / 1_000_000;
}
