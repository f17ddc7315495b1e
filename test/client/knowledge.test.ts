import { afterEach, describe, expect, it } from "vitest";
import { KnowledgeService } from "../../src/app/server/http/knowledge-service.js";
import { startServer } from "../../src/app/server/start-server.js";
import { AgentScopeClient, ServiceError } from "../../src/client/index.js";
import { InMemoryVectorStore } from "../../src/rag/index.js";
import { HashEmbedding, ScriptedModel } from "../../src/testing/index.js";

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** A real service with knowledge bases and two users; a client per user. */
async function serve(options: { knowledge?: boolean } = {}) {
  const server = await startServer({
    config: { agents: [{ name: "main", model: new ScriptedModel([]) }], store: "memory:" },
    port: 0,
    tokensEnv: "t-alice:alice,t-bob:bob",
    withoutOptionalRoutes: true,
    ...(options.knowledge === false
      ? {}
      : {
          knowledge: new KnowledgeService({
            embedding: new HashEmbedding(),
            store: new InMemoryVectorStore(),
          }),
        }),
  });
  cleanups.push(() => server.close());
  return {
    alice: new AgentScopeClient({ baseUrl: server.url, token: "t-alice" }),
    bob: new AgentScopeClient({ baseUrl: server.url, token: "t-bob" }),
  };
}

describe("client.knowledge against a real service", () => {
  it("creates and lists bases, uploads documents, follows their indexing jobs, searches with citations, deletes", async () => {
    const { alice, bob } = await serve();
    expect(await alice.knowledge.list()).toEqual([]);
    const created = await alice.knowledge.create("notes", "team notes");
    expect(created).toMatchObject({ name: "notes", description: "team notes" });
    expect(Number.isNaN(Date.parse(created.createdAt))).toBe(false);
    expect((await alice.knowledge.list()).map((b) => b.name)).toEqual(["notes"]);

    const jobs = await alice.knowledge.upload("notes", [
      new File(["The vault code is written on the blue card."], "vault.txt", { type: "text/plain" }),
      {
        name: "garden.md",
        content: "# Garden\n\nThe tomatoes are watered every Tuesday.",
        type: "text/markdown",
      },
      { name: "bytes.txt", content: new TextEncoder().encode("The parking spot is number 42.") },
    ]);
    expect(jobs.map((j) => j.documentId)).toEqual(["vault.txt", "garden.md", "bytes.txt"]);
    for (const job of jobs) {
      const done = await alice.knowledge.waitForJob("notes", job.id, { intervalMs: 20 });
      expect(done).toMatchObject({ id: job.id, knowledgeBase: "notes", status: "done" });
      expect(done.chunks).toBeGreaterThan(0);
      expect(await alice.knowledge.job("notes", job.id)).toEqual(done);
    }

    const documents = await alice.knowledge.documents("notes");
    expect(documents.map((d) => d.documentId).sort()).toEqual(["bytes.txt", "garden.md", "vault.txt"]);
    expect(documents.every((d) => d.chunkCount > 0)).toBe(true);

    const hits = await alice.knowledge.search("notes", "vault code blue card", { topK: 1 });
    expect(hits).toHaveLength(1);
    expect(hits[0]).toMatchObject({ documentId: "vault.txt", citation: "vault.txt", chunkIndex: 0 });
    expect(hits[0]?.text).toContain("blue card");
    const keyword = await alice.knowledge.search("notes", ["tomatoes watered"], { mode: "keyword", topK: 1 });
    expect(keyword[0]?.documentId).toBe("garden.md");

    // Bob sees none of it.
    expect(await bob.knowledge.list()).toEqual([]);
    await expect(bob.knowledge.search("notes", "vault")).rejects.toMatchObject({
      status: 404,
      type: "not_found",
    });

    await alice.knowledge.deleteDocument("notes", "vault.txt");
    expect((await alice.knowledge.documents("notes")).map((d) => d.documentId).sort()).toEqual([
      "bytes.txt",
      "garden.md",
    ]);
    await expect(alice.knowledge.deleteDocument("notes", "vault.txt")).rejects.toMatchObject({ status: 404 });
    await alice.knowledge.delete("notes");
    expect(await alice.knowledge.list()).toEqual([]);
  });

  it("the service's refusals are typed errors: a bad or taken name, no file, a missing base or job", async () => {
    const { alice } = await serve();
    const badName = await alice.knowledge.create("no spaces").catch((e: unknown) => e);
    expect(badName).toBeInstanceOf(ServiceError);
    expect(badName).toMatchObject({ status: 400, type: "invalid_request" });
    await alice.knowledge.create("docs");
    await expect(alice.knowledge.create("docs")).rejects.toMatchObject({ status: 409 });
    await expect(alice.knowledge.upload("missing", [{ name: "a.txt", content: "a" }])).rejects.toMatchObject({
      status: 404,
      type: "not_found",
    });
    await expect(alice.knowledge.job("docs", "nope")).rejects.toMatchObject({ status: 404 });
    await expect(alice.knowledge.upload("docs", [])).rejects.toThrow(/at least one document/);
    await expect(alice.knowledge.upload("docs", [{ name: "", content: "x" }])).rejects.toThrow(
      /needs a name/,
    );
  });

  it("a service without knowledge bases answers 404", async () => {
    const { alice } = await serve({ knowledge: false });
    await expect(alice.knowledge.list()).rejects.toMatchObject({ status: 404 });
  });
});
