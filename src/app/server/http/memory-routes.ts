import { Hono } from "hono";
import type { LongTermMemory, MemoryKind, MemoryScope } from "../../../memory/index.js";
import { HttpError } from "../http-error.js";
import type { ServiceVariables } from "./auth.js";

const KINDS: readonly MemoryKind[] = ["fact", "preference"];

/**
 * What each user remembers, for them to see and correct (mounted at `/`, under the /v1 auth):
 * - `GET /v1/memories?agent=NAME` → `{ enabled, memories: MemoryRecord[] }`: the caller's memories
 *   (with `agent`, those of that agent plus the shared ones), oldest first.
 * - `DELETE /v1/memories/:id` → 204, or 404 when the caller has no memory with that id.
 * - `DELETE /v1/memories?kind=fact|preference` → `{ deleted }`: forgets all (or all of one kind).
 * Every call is scoped to the authenticated user: another user's memory is a 404, never visible.
 * Without memory configured, GET answers `{ enabled: false, memories: [] }` and DELETE a 404.
 */
export function memoryRoutes(memory: LongTermMemory | undefined): Hono<{ Variables: ServiceVariables }> {
  const app = new Hono<{ Variables: ServiceVariables }>();
  const need = (): LongTermMemory => {
    if (!memory)
      throw new HttpError(
        404,
        "not_found",
        "memory is not enabled on this server (set memory in the agent config)",
      );
    return memory;
  };
  const scopeOf = (user: string, agent: string | undefined): MemoryScope => {
    if (agent !== undefined && !/^[\w.-]{1,64}$/.test(agent)) {
      throw new HttpError(400, "invalid_request", "agent: letters, digits, _, . or - (at most 64)");
    }
    return agent === undefined ? { userId: user } : { userId: user, agentId: agent };
  };

  app.get("/v1/memories", async (c) => {
    if (!memory) return c.json({ enabled: false, memories: [] });
    return c.json({ enabled: true, memories: await memory.list(scopeOf(c.var.user, c.req.query("agent"))) });
  });

  app.delete("/v1/memories/:id", async (c) => {
    const id = c.req.param("id");
    if ((await need().forget(id, { userId: c.var.user })) === 0) {
      throw new HttpError(404, "not_found", `no memory "${id}"`);
    }
    return c.body(null, 204);
  });

  app.delete("/v1/memories", async (c) => {
    const kind = c.req.query("kind");
    if (kind !== undefined && !KINDS.includes(kind as MemoryKind)) {
      throw new HttpError(400, "invalid_request", `kind: one of ${KINDS.join(", ")}`);
    }
    const scope = { userId: c.var.user };
    const store = need();
    const deleted =
      kind === undefined
        ? await store.forget({ ids: (await store.list(scope)).map((m) => m.id) }, scope)
        : await store.forget({ kind: kind as MemoryKind }, scope);
    return c.json({ deleted });
  });

  return app;
}
