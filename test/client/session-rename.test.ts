import { afterEach, expect, it } from "vitest";
import { startServer } from "../../src/app/server/start-server.js";
import { AgentScopeClient, ServiceError } from "../../src/client/index.js";
import { ScriptedModel } from "../../src/testing/index.js";

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

it("renameSession renames on the service: the record, get and list carry the title; bad titles and others' sessions are typed errors", async () => {
  const server = await startServer({
    config: { agents: [{ name: "main", model: new ScriptedModel([]) }], store: "memory:" },
    port: 0,
    tokensEnv: "t-alice:alice,t-bob:bob",
    withoutOptionalRoutes: true,
  });
  cleanups.push(() => server.close());
  const alice = new AgentScopeClient({ baseUrl: server.url, token: "t-alice" });
  const bob = new AgentScopeClient({ baseUrl: server.url, token: "t-bob" });

  const { sessionId } = await alice.createSession({ title: "untitled" });
  const renamed = await alice.renameSession(sessionId, "Groceries");
  expect(renamed).toMatchObject({ sessionId, owner: "alice", title: "Groceries" });
  expect((await alice.getSession(sessionId)).title).toBe("Groceries");
  expect((await alice.listSessions()).sessions.find((s) => s.sessionId === sessionId)?.title).toBe(
    "Groceries",
  );

  const tooLong = await alice.renameSession(sessionId, "x".repeat(201)).catch((e: unknown) => e);
  expect(tooLong).toBeInstanceOf(ServiceError);
  expect(tooLong).toMatchObject({ status: 400, type: "invalid_request" });
  expect((tooLong as Error).message).toContain("title");
  await expect(bob.renameSession(sessionId, "mine")).rejects.toMatchObject({
    status: 404,
    type: "not_found",
  });
  expect((await alice.getSession(sessionId)).title).toBe("Groceries");
});
