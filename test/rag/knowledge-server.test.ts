import { afterEach, expect, it } from "vitest";
import { KnowledgeService } from "../../src/app/server/http/knowledge-service.js";
import { type RunningServer, startServer } from "../../src/app/server/start-server.js";
import { InMemoryVectorStore } from "../../src/rag/index.js";
import { HashEmbedding, ScriptedModel } from "../../src/testing/index.js";

const servers: RunningServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

it("startServer({ knowledge }) serves the knowledge base routes behind the service's auth", async () => {
  const knowledge = new KnowledgeService({
    embedding: new HashEmbedding(),
    store: new InMemoryVectorStore(),
  });
  const server = await startServer({
    config: { agents: [{ name: "main", model: new ScriptedModel([]) }], store: "memory:" },
    port: 0,
    tokensEnv: "t-alice:alice,t-bob:bob",
    withoutOptionalRoutes: true,
    knowledge,
  });
  servers.push(server);
  const as = (token: string, init: RequestInit = {}) => ({
    ...init,
    headers: { ...(init.headers as Record<string, string>), authorization: `Bearer ${token}` },
  });
  const JSON_TYPE = { "content-type": "application/json" };
  const base = `${server.url}/v1/knowledge-bases`;
  expect((await fetch(base)).status).toBe(401);
  const created = await fetch(
    base,
    as("t-alice", { method: "POST", headers: JSON_TYPE, body: JSON.stringify({ name: "notes" }) }),
  );
  expect(created.status).toBe(201);
  const form = new FormData();
  form.append(
    "file",
    new File(["The vault code is written on the blue card."], "vault.txt", { type: "text/plain" }),
  );
  const { jobs } = (await (
    await fetch(`${base}/notes/documents`, as("t-alice", { method: "POST", body: form }))
  ).json()) as {
    jobs: { id: string }[];
  };
  await knowledge.settled("alice", jobs[0]!.id);
  const search = await fetch(
    `${base}/notes/search`,
    as("t-alice", { method: "POST", headers: JSON_TYPE, body: JSON.stringify({ query: "vault code" }) }),
  );
  expect(await search.json()).toMatchObject({ hits: [{ documentId: "vault.txt", citation: "vault.txt" }] });
  expect(await (await fetch(base, as("t-bob"))).json()).toEqual({ knowledgeBases: [] });
});
