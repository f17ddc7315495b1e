import { InMemoryStateStore } from "../../src/state/index.js";
import { describeStoreContract } from "./store-contract.js";

describeStoreContract("InMemoryStateStore", {
  open: async () => new InMemoryStateStore(),
  cleanup: async () => {},
});
