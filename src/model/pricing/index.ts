export { BUILTIN_PRICES } from "./builtin-prices.js";
export { type ModelPrice, ModelPriceSchema, type PricedUsage, priceUsage } from "./model-price.js";
export { type FoundPrice, PricingTable, type PricingTableOptions, pricingTable } from "./pricing-table.js";
