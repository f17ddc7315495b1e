import type { StoreFamily } from "../store-family.js";
import { InMemoryStateStore } from "./memory-store.js";

/** In this process only, gone when it exits. */
export const memoryFamily: StoreFamily = {
  schemes: ["memory"],
  example: "memory:",
  openStore: async () => new InMemoryStateStore(),
  openBackend: async (_url, options) => (await import("./memory-backend.js")).memoryBackend(options),
};
