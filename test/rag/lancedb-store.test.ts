import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll } from "vitest";
import { LanceDbVectorStore } from "../../src/rag/index.js";
import { vectorStoreContract } from "./store-contract.js";

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "agentscope-rag-lance-"));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

vectorStoreContract("LanceDB (embedded)", async () => new LanceDbVectorStore({ uri: dir }));
