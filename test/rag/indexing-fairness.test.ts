import { describe, expect, it, vi } from "vitest";
import { IndexingQueue } from "../../src/app/server/http/indexing-queue.js";
import { KnowledgeService } from "../../src/app/server/http/knowledge-service.js";
import type { EmbeddingResult, EmbedOptions } from "../../src/model/embedding.js";
import { HtmlReader, InMemoryVectorStore, ReaderPool } from "../../src/rag/index.js";
import { HashEmbedding } from "../../src/testing/index.js";

/** One user's uploads must not hold up another's: a queue per user, served in turn. */

function deferred() {
  let resolve!: () => void;
  const promise = new Promise<void>((r) => {
    resolve = r;
  });
  return { promise, resolve };
}

const tick = () => new Promise((resolve) => setImmediate(resolve));

describe("IndexingQueue", () => {
  it("serves users round-robin: a later user's one job runs before the first user's second", async () => {
    const queue = new IndexingQueue(1);
    const started: string[] = [];
    const gates = new Map<string, ReturnType<typeof deferred>>();
    const job = (name: string) => async () => {
      started.push(name);
      const gate = deferred();
      gates.set(name, gate);
      await gate.promise;
    };
    for (const name of ["a1", "a2", "a3"]) queue.add("alice", job(name));
    queue.add("bob", job("b1"));
    queue.add("carol", job("c1"));
    const finish = async (name: string) => {
      await tick();
      gates.get(name)?.resolve();
      await tick();
    };
    await finish("a1");
    await finish("b1");
    await finish("c1");
    await finish("a2");
    await finish("a3");
    expect(started).toEqual(["a1", "b1", "c1", "a2", "a3"]);
  });

  it("a user whose queue ran dry and who queues again still waits for the others' turn", async () => {
    const queue = new IndexingQueue(1);
    const started: string[] = [];
    const gate = deferred();
    queue.add("alice", async () => {
      started.push("a1");
      await gate.promise;
    });
    await tick(); // a1 runs; alice has nothing waiting
    queue.add("alice", async () => {
      started.push("a2");
    });
    queue.add("bob", async () => {
      started.push("b1");
    });
    gate.resolve();
    while (started.length < 3) await tick();
    expect(started).toEqual(["a1", "b1", "a2"]);
  });

  it("runs at most one job per user, however many slots are free, and goes on after a failure", async () => {
    const queue = new IndexingQueue(8);
    let running = 0;
    let most = 0;
    const done: number[] = [];
    for (let i = 0; i < 5; i++)
      queue.add("alice", async () => {
        running++;
        most = Math.max(most, running);
        await tick();
        running--;
        done.push(i);
        if (i === 1) throw new Error("this job failed");
      });
    while (done.length < 5) await tick();
    expect(most).toBe(1);
    expect(done).toEqual([0, 1, 2, 3, 4]);
    expect(() => new IndexingQueue(0)).toThrow(/positive integer/);
  });
});

/** An embedding that records which document each call is for and waits until released. */
class GatedEmbedding extends HashEmbedding {
  readonly order: string[] = [];
  readonly #gates: Array<() => void> = [];
  override async embed(texts: readonly string[], opts?: EmbedOptions): Promise<EmbeddingResult> {
    this.order.push(texts[0]?.split(" ")[0] ?? "");
    await new Promise<void>((resolve) => this.#gates.push(resolve));
    return super.embed(texts, opts);
  }
  async releaseNext(): Promise<void> {
    while (this.#gates.length === 0) await tick();
    this.#gates.shift()?.();
  }
}

describe("KnowledgeService indexing", () => {
  it("reads uploads in worker threads and lets a second user in before the first one's backlog", async () => {
    const pool = new ReaderPool({ size: 1 });
    const embedding = new GatedEmbedding();
    const service = new KnowledgeService({
      embedding,
      store: new InMemoryVectorStore(),
      readerPool: pool,
      maxConcurrentIndexing: 1,
    });
    const html = vi.spyOn(HtmlReader.prototype, "read");
    try {
      await service.create("alice", "kb");
      await service.create("bob", "kb");
      const upload = (user: string, name: string) =>
        service.startIndexing(user, "kb", {
          name: `${name}.html`,
          type: "text/html",
          bytes: new TextEncoder().encode(`<p>${name} text</p>`),
        });
      const alice = [
        await upload("alice", "alice1"),
        await upload("alice", "alice2"),
        await upload("alice", "alice3"),
      ];
      const bob = await upload("bob", "bob1");
      expect(alice.map((job) => job.status)).toEqual(["queued", "queued", "queued"]);
      for (let i = 0; i < 4; i++) await embedding.releaseNext();
      const settled = await Promise.all([
        ...alice.map((job) => service.settled("alice", job.id)),
        service.settled("bob", bob.id),
      ]);
      expect(settled.map((job) => job.status)).toEqual(["done", "done", "done", "done"]);
      expect(embedding.order).toEqual(["alice1", "bob1", "alice2", "alice3"]);
      expect(html).not.toHaveBeenCalled(); // read in the pool's worker, not on this event loop
    } finally {
      html.mockRestore();
      await pool.close();
    }
  });
});
