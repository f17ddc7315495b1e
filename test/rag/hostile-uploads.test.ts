import { afterAll, beforeAll, expect, it, vi } from "vitest";
import { KnowledgeService } from "../../src/app/server/http/knowledge-service.js";
import { type RunningServer, startServer } from "../../src/app/server/start-server.js";
import { DocxReader, HtmlReader, InMemoryVectorStore, MarkdownReader } from "../../src/rag/index.js";
import { HashEmbedding } from "../../src/testing/index.js";
import { conversationModel } from "../app/fixtures/agents.js";
import { buildZip } from "./fixtures/zip-builder.js";

/**
 * The attack of the issue, end to end over HTTP: a 3 KB Markdown file, a 128 KB HTML file built to
 * make backtracking regexes explode, and a .docx zip bomb, uploaded to the service. Each is read off
 * this thread (the readers here never run), the text ones index correctly and the bomb fails with
 * the limit it passed, and the service answers other requests meanwhile.
 */

let server: RunningServer;
beforeAll(async () => {
  server = await startServer({
    config: { agents: [{ name: "main", model: conversationModel() }], store: "memory:" },
    port: 0,
    tokensEnv: "",
    withoutOptionalRoutes: true,
    knowledge: new KnowledgeService({ embedding: new HashEmbedding(), store: new InMemoryVectorStore() }),
  });
});
afterAll(() => server.close());

it("hostile uploads are read in workers: the text ones index, the zip bomb fails naming its limit", async () => {
  const spies = [HtmlReader, MarkdownReader, DocxReader].map((reader) => vi.spyOn(reader.prototype, "read"));
  const base = `${server.url}/v1/knowledge-bases`;
  const created = await fetch(base, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ name: "kb" }),
  });
  expect(created.status).toBe(201);

  const markdown = `# Notes${" ".repeat(1500)}#${" ".repeat(1500)}x\nthe vault code is 4711\n`;
  const html = `<h1>Manual</h1><p>the reactor runs cold</p>${"<!--".repeat(32 * 1024)}`;
  const bomb = buildZip([{ name: "word/document.xml", data: new Uint8Array(8 * 1024 * 1024) }]);
  expect(markdown.length).toBeGreaterThan(3000);
  expect(html.length).toBeGreaterThan(128 * 1024);
  const form = new FormData();
  form.append("file", new File([markdown], "notes.md", { type: "text/markdown" }));
  form.append("file", new File([html], "manual.html", { type: "text/html" }));
  form.append("file", new File([bomb], "bomb.docx"));
  const accepted = await fetch(`${base}/kb/documents`, { method: "POST", body: form });
  expect(accepted.status).toBe(202);
  const { jobs } = (await accepted.json()) as { jobs: { id: string; documentId: string }[] };

  // The event loop is free while they are read: the health route answers.
  expect((await fetch(`${server.url}/v1/health`)).status).toBe(200);

  const knowledge = server.knowledge as KnowledgeService;
  const settled = await Promise.all(jobs.map((job) => knowledge.settled("local", job.id)));
  expect(settled.map((job) => [job.documentId, job.status])).toEqual([
    ["notes.md", "done"],
    ["manual.html", "done"],
    ["bomb.docx", "failed"],
  ]);
  expect(settled[2]?.error).toMatch(/^cannot read bomb\.docx: .*\(limit maxCompressionRatio: 100\)$/);
  for (const spy of spies) expect(spy).not.toHaveBeenCalled();

  const search = await fetch(`${base}/kb/search`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ query: "vault code", mode: "vector", topK: 1 }),
  });
  const { hits } = (await search.json()) as { hits: { documentId: string; text: string }[] };
  expect(hits[0]?.documentId).toBe("notes.md");
  for (const spy of spies) spy.mockRestore();
}, 60_000);
