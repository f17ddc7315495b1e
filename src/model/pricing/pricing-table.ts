import type { Cost } from "../../message/index.js";
import { formatPath, ValidationError } from "../../message/index.js";
import { BUILTIN_PRICES } from "./builtin-prices.js";
import { type ModelPrice, ModelPriceSchema, type PricedUsage, priceUsage } from "./model-price.js";

export interface PricingTableOptions {
  /**
   * Prices keyed `provider:model` (`openai:gpt-4o`, `anthropic:claude-sonnet-4`, `my-vllm:*`); they
   * replace built-in prices of the same key and add new ones.
   */
  prices?: Record<string, ModelPrice>;
  /** Start from the built-in prices (default true); false: only `prices`. */
  builtin?: boolean;
}

/** A price found for a call: the key that matched and the price. */
export interface FoundPrice {
  key: string;
  price: ModelPrice;
}

const BOUNDARY = new Set(["-", ".", "@", ":", "/"]);

/**
 * Prices per provider and model that turn a call's usage into money. Give one to an Agent
 * (`pricing`): every MODEL_CALL_END then carries `cost`, and the reply Msg the sum. A model with no
 * price costs "no price" (`usd: null`), never zero.
 */
export class PricingTable {
  readonly #prices = new Map<string, Map<string, ModelPrice>>();

  constructor(prices: Record<string, ModelPrice>) {
    for (const [key, price] of Object.entries(prices)) this.#set(key, price);
  }

  /** A new table: these prices over this table's. */
  with(prices: Record<string, ModelPrice>): PricingTable {
    const table = new PricingTable({});
    for (const [provider, models] of this.#prices)
      for (const [model, price] of models) table.#set(`${provider}:${model}`, price);
    for (const [key, price] of Object.entries(checkedPrices(prices))) table.#set(key, price);
    return table;
  }

  /** The price of `model` at `provider` (a `models/` prefix is ignored), or undefined: no price. */
  find(provider: string, model: string): FoundPrice | undefined {
    const models = this.#prices.get(provider);
    if (!models) return undefined;
    const name = model.startsWith("models/") ? model.slice("models/".length) : model;
    let best: string | undefined;
    for (const key of models.keys()) {
      if (key === "*" || !name.startsWith(key)) continue;
      if (name.length > key.length && !BOUNDARY.has(name[key.length] as string)) continue;
      if (best === undefined || key.length > best.length) best = key;
    }
    const key = best ?? (models.has("*") ? "*" : undefined);
    if (key === undefined) return undefined;
    return { key: `${provider}:${key}`, price: models.get(key) as ModelPrice };
  }

  /** What one call of `model` at `provider` cost: dollars with the price's date, or "no price". */
  cost(provider: string, model: string, usage: PricedUsage): Cost {
    const found = this.find(provider, model);
    if (!found) return { usd: null, pricedUsd: 0, unpriced: [`${provider}:${model}`] };
    const usd = priceUsage(usage, found.price);
    return { usd, pricedUsd: usd, priceAsOf: found.price.asOf };
  }

  #set(key: string, price: ModelPrice): void {
    const colon = key.indexOf(":");
    const provider = key.slice(0, colon);
    const models = this.#prices.get(provider) ?? new Map<string, ModelPrice>();
    models.set(key.slice(colon + 1), price);
    this.#prices.set(provider, models);
  }
}

/** Each key `provider:model` and each price valid, or a ValidationError naming the bad one. */
function checkedPrices(prices: unknown): Record<string, ModelPrice> {
  if (typeof prices !== "object" || prices === null || Array.isArray(prices))
    throw new ValidationError("pricing prices", "", "expected an object of `provider:model` keys to prices");
  const checked: Record<string, ModelPrice> = {};
  for (const [key, price] of Object.entries(prices)) {
    const colon = key.indexOf(":");
    if (colon <= 0 || colon === key.length - 1)
      throw new ValidationError(
        "pricing prices",
        key,
        `the key must be "provider:model" (e.g. "openai:gpt-4o")`,
      );
    const parsed = ModelPriceSchema.safeParse(price);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      const field = issue && issue.path.length > 0 ? `${key}.${formatPath(issue.path)}` : key;
      throw new ValidationError("pricing prices", field, issue?.message ?? "not a price");
    }
    checked[key] = parsed.data;
  }
  return checked;
}

/**
 * A pricing table: the built-in prices (BUILTIN_PRICES, each with its date) with `prices` over
 * them, or only `prices` with `builtin: false`.
 */
export function pricingTable(options: PricingTableOptions = {}): PricingTable {
  const base = new PricingTable(options.builtin === false ? {} : BUILTIN_PRICES);
  return options.prices === undefined ? base : base.with(options.prices);
}
