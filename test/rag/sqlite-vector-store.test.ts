import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, expect, it } from "vitest";
import { SqliteVectorStore } from "../../src/rag/index.js";
import { record, vectorStoreContract } from "./store-contract.js";

vectorStoreContract(
  "sqlite (auto: sqlite-vec where installed, + FTS5)",
  async () => new SqliteVectorStore(":memory:"),
);

const dirs: string[] = [];
afterAll(async () => {
  for (const dir of dirs) await rm(dir, { recursive: true, force: true });
});

it("sqlite: keeps collections in the file across reopening", async () => {
  const dir = await mkdtemp(join(tmpdir(), "agentscope-rag-sqlite-"));
  dirs.push(dir);
  const path = join(dir, "vectors.db");
  const first = new SqliteVectorStore({ path });
  await first.createCollection("docs", { dimensions: 32 });
  await first.upsert("docs", [record("a", 0, "persisted text", { tenant: "x" })]);
  await first.close();
  const second = new SqliteVectorStore({ path });
  expect(await second.hasCollection("docs")).toBe(true);
  expect((await second.listChunks("docs"))[0]).toMatchObject({
    documentId: "a",
    text: "persisted text",
    metadata: { tenant: "x" },
  });
  await second.close();
});
