/**
 * Money spent on model calls, in US dollars. Plain JSON data: on a MODEL_CALL_END (one call), on the
 * reply Msg (the calls of one reply, folded from those events) and summed over a session.
 *
 * "No price" is never zero: when any call in a total had no known price, `usd` is null and
 * `unpriced` names the models; `pricedUsd` is still what the priced calls cost.
 */
export interface Cost {
  /** The total in US dollars; null ("no price") when some call in it had no price. */
  usd: number | null;
  /** What the priced calls cost (equals `usd` when every call had a price). */
  pricedUsd: number;
  /** `provider:model` of the calls that had no price, each once. */
  unpriced?: string[];
  /** On one call: the date of the price that was used (YYYY-MM-DD). */
  priceAsOf?: string;
}

/** `total` plus `more` (a new object; the date of one call's price is not carried into a total). */
export function addCost(total: Cost | undefined, more: Cost): Cost {
  const unpriced = [...new Set([...(total?.unpriced ?? []), ...(more.unpriced ?? [])])];
  const pricedUsd = (total?.pricedUsd ?? 0) + more.pricedUsd;
  const sum: Cost = { usd: unpriced.length > 0 ? null : pricedUsd, pricedUsd };
  if (unpriced.length > 0) sum.unpriced = unpriced;
  return sum;
}

/** What a session (or any list of messages) cost: the sum of its replies' `cost`; undefined when none was priced. */
export function sessionCost(messages: readonly { cost?: Cost }[]): Cost | undefined {
  let total: Cost | undefined;
  for (const msg of messages) if (msg.cost !== undefined) total = addCost(total, msg.cost);
  return total;
}
