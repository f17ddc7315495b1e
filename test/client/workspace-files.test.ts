import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type RunningServer, startServer } from "../../src/app/server/start-server.js";
import { AgentScopeClient, ServiceError } from "../../src/client/index.js";
import { conversationModel } from "../app/fixtures/agents.js";

const TOKENS = "tok-alice:alice,tok-bob:bob";

const serve = (dataDir?: string) =>
  startServer({
    config: { agents: [{ name: "main", model: conversationModel() }] },
    store: "memory:",
    port: 0,
    tokensEnv: TOKENS,
    withoutOptionalRoutes: true,
    workspaces: dataDir ? { dataDir } : false,
  });

/** The typed error a promise rejects with. */
async function failure(promise: Promise<unknown>): Promise<ServiceError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(ServiceError);
  return error as ServiceError;
}

describe("AgentScopeClient workspace files against a real service with workspaces", () => {
  const dataDir = mkdtempSync(join(tmpdir(), "agentscope-client-ws-"));
  let server: RunningServer;
  let bare: RunningServer;
  const requests: Array<{ url: string; authorization: string | null }> = [];
  const recordingFetch: typeof fetch = (input, init) => {
    requests.push({ url: String(input), authorization: new Headers(init?.headers).get("authorization") });
    return fetch(input, init);
  };
  let alice: AgentScopeClient;
  let sessionId: string;

  beforeAll(async () => {
    server = await serve(dataDir);
    bare = await serve();
    alice = new AgentScopeClient({ baseUrl: server.url, token: "tok-alice", fetch: recordingFetch });
    ({ sessionId } = await alice.createSession({ title: "files" }));
    const root = join(dataDir, "workspaces", "sessions", `s-${sessionId}`);
    mkdirSync(join(root, "reports"), { recursive: true });
    writeFileSync(join(root, "notes.txt"), "buy oat milk\n");
    writeFileSync(join(root, "reports", "résumé 1.bin"), Buffer.from([0, 1, 2, 255, 254]));
  }, 30_000);

  afterAll(async () => {
    await server?.close();
    await bare?.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it("lists the root, a directory and everything under it", async () => {
    const root = await alice.workspaceFiles(sessionId);
    expect(root.path).toBe(".");
    expect(root.truncated).toBe(false);
    expect(root.entries.map((e) => [e.path, e.type, e.size])).toEqual([
      ["notes.txt", "file", 13],
      ["reports", "directory", 0],
    ]);
    expect(Number.isNaN(Date.parse(root.entries[0]!.modifiedAt))).toBe(false);

    const reports = await alice.workspaceFiles(sessionId, { path: "reports" });
    expect(reports.entries.map((e) => e.path)).toEqual(["reports/résumé 1.bin"]);

    const all = await alice.workspaceFiles(sessionId, { recursive: true });
    expect(all.entries.map((e) => e.path)).toEqual(["notes.txt", "reports", "reports/résumé 1.bin"]);
  });

  it("downloads a file's exact bytes with the token in the Authorization header, never in the URL", async () => {
    requests.length = 0;
    const text = await alice.downloadWorkspaceFile(sessionId, "notes.txt");
    expect(await text.text()).toBe("buy oat milk\n");
    const binary = await alice.downloadWorkspaceFile(sessionId, "reports/résumé 1.bin");
    expect([...new Uint8Array(await binary.arrayBuffer())]).toEqual([0, 1, 2, 255, 254]);
    expect(requests.map((r) => r.authorization)).toEqual(["Bearer tok-alice", "Bearer tok-alice"]);
    expect(requests.some((r) => r.url.includes("tok-alice"))).toBe(false);
    expect(alice.workspaceFileUrl(sessionId, "reports/résumé 1.bin")).toBe(
      `${server.url}/v1/sessions/${sessionId}/workspace/file?path=reports%2Fr%C3%A9sum%C3%A9%201.bin`,
    );
  });

  it("answers mistakes with typed errors", async () => {
    const missing = await failure(alice.downloadWorkspaceFile(sessionId, "nope.txt"));
    expect([missing.status, missing.type]).toEqual([404, "not_found"]);
    expect(missing.request).toBe(`GET /v1/sessions/${sessionId}/workspace/file`);

    const directory = await failure(alice.downloadWorkspaceFile(sessionId, "reports"));
    expect([directory.status, directory.type]).toEqual([400, "invalid_request"]);
    const outside = await failure(alice.workspaceFiles(sessionId, { path: "../.." }));
    expect([outside.status, outside.type]).toEqual([400, "invalid_request"]);
    const noDir = await failure(alice.workspaceFiles(sessionId, { path: "absent" }));
    expect([noDir.status, noDir.type]).toEqual([404, "not_found"]);

    const bob = new AgentScopeClient({ baseUrl: server.url, token: "tok-bob" });
    expect((await failure(bob.workspaceFiles(sessionId))).status).toBe(404);
    expect((await failure(bob.downloadWorkspaceFile(sessionId, "notes.txt"))).status).toBe(404);
    const anonymous = new AgentScopeClient({ baseUrl: server.url });
    const unauthenticated = await failure(anonymous.downloadWorkspaceFile(sessionId, "notes.txt"));
    expect([unauthenticated.status, unauthenticated.type]).toEqual([401, "authentication"]);

    expect(() => alice.workspaceFileUrl(sessionId, "")).toThrow(/path: the workspace file/);
  });

  it("a service without workspaces answers 404 not_found (what the console hides its panel on)", async () => {
    const client = new AgentScopeClient({ baseUrl: bare.url, token: "tok-alice" });
    const session = await client.createSession();
    const error = await failure(client.workspaceFiles(session.sessionId));
    expect(error.status).toBe(404);
  });
});
