// The service's side of the store families, for agentscope's own service (app/): not part of the
// public `agentscope/state` entry. app/ re-exports the public names of it.
export { familyOf, STORE_FAMILIES, supportedUrls } from "../store-families.js";
export type { StoreFamily } from "../store-family.js";
export { splitStoreUrl } from "../store-family.js";
export { FencedError, isFenced } from "./fenced-error.js";
export { ownerIsGone } from "./lease-owner.js";
export { newestEvent } from "./newest-event.js";
export * from "./service-backend.js";
