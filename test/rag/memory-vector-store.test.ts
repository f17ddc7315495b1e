import { InMemoryVectorStore } from "../../src/rag/index.js";
import { vectorStoreContract } from "./store-contract.js";

vectorStoreContract("in-memory", async () => new InMemoryVectorStore());
