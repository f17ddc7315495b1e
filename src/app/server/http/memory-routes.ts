import type { Hono } from "hono";
import {
  type LongTermMemory,
  type MemoryKind,
  MemoryPathError,
  type MemoryScope,
  memoryPath,
  shownPath,
} from "../../../memory/index.js";
import type { ServiceMemory } from "../config/build-memory.js";
import { RequestError } from "../request-error.js";
import type { ServiceVariables } from "./auth.js";
import { routesFrom } from "./routes-from.js";

const KINDS: readonly MemoryKind[] = ["fact", "preference"];

/**
 * What each user's agents remember, for the user to see and correct (mounted at `/`, under the /v1
 * auth). Every call is scoped to the authenticated user: another user's memory is a 404, never shown.
 * - `GET /v1/memories?agent=NAME` → `{ enabled, memories: MemoryRecord[] }` (semantic memories,
 *   oldest first; with `agent`, that agent's plus the shared ones).
 * - `DELETE /v1/memories/:id` → 204, or 404 when the caller has no memory with that id.
 * - `DELETE /v1/memories?kind=fact|preference` → `{ deleted }`: forgets all (or all of one kind).
 * - `GET /v1/memories/notes?agent=NAME` → `{ enabled, files: [{ path, size, text }] }`: the notes the
 *   `Memory` tool keeps (with `agent`, those of an agent configured with `perAgent`).
 * - `DELETE /v1/memories/notes?path=/memories/x.md&agent=NAME` → 204, or 404 when there is none.
 * Whatever is not enabled answers GET with `enabled: false` and DELETE with a 404.
 */
export function memoryRoutes(served: ServiceMemory): Hono<{ Variables: ServiceVariables }> {
  const scopeOf = (user: string, agent: string | undefined): MemoryScope => {
    if (agent !== undefined && !/^[\w.-]{1,64}$/.test(agent)) {
      throw new RequestError("invalid_request", "agent: letters, digits, _, . or - (at most 64)");
    }
    return agent === undefined ? { userId: user } : { userId: user, agentId: agent };
  };
  const semantic = (): LongTermMemory => {
    if (!served.semantic)
      throw new RequestError("not_found", "semantic memory is not enabled on this server");
    return served.semantic;
  };
  const notesOf = (user: string, agent: string | undefined) => {
    if (!served.notes) throw new RequestError("not_found", "memory notes are not enabled on this server");
    return served.notes(scopeOf(user, agent));
  };

  // The notes routes come first: `/v1/memories/:id` would take "notes" for an id.
  return routesFrom({
    listMemoryNotes: async (c) => {
      if (!served.notes) return c.json({ enabled: false, files: [] });
      const files = notesOf(c.var.user, c.req.query("agent"));
      const entries = (await files.list("")).filter((entry) => entry.kind === "file");
      const listed = await Promise.all(
        entries.map(async (entry) => ({
          path: shownPath(entry.path),
          size: entry.size ?? 0,
          text: (await files.read(entry.path)) ?? "",
        })),
      );
      return c.json({ enabled: true, files: listed });
    },

    deleteMemoryNote: async (c) => {
      const files = notesOf(c.var.user, c.req.query("agent"));
      const given = c.req.query("path");
      if (!given)
        throw new RequestError("invalid_request", "path: the note to delete, e.g. /memories/prefs.md");
      let path: string;
      try {
        path = memoryPath(given);
      } catch (error) {
        if (error instanceof MemoryPathError)
          throw new RequestError("invalid_request", `path: ${error.message}`);
        throw error;
      }
      if (path === "" || !(await files.delete(path))) throw new RequestError("not_found", `no note ${given}`);
      return c.body(null, 204);
    },

    listMemories: async (c) => {
      if (!served.semantic) return c.json({ enabled: false, memories: [] });
      return c.json({
        enabled: true,
        memories: await served.semantic.list(scopeOf(c.var.user, c.req.query("agent"))),
      });
    },

    deleteMemory: async (c, request) => {
      const id = request.param("id");
      if ((await semantic().forget(id, { userId: c.var.user })) === 0) {
        throw new RequestError("not_found", `no memory "${id}"`);
      }
      return c.body(null, 204);
    },

    forgetMemories: async (c) => {
      const kind = c.req.query("kind");
      if (kind !== undefined && !KINDS.includes(kind as MemoryKind)) {
        throw new RequestError("invalid_request", `kind: one of ${KINDS.join(", ")}`);
      }
      const scope = { userId: c.var.user };
      const memory = semantic();
      const deleted =
        kind === undefined
          ? await memory.forget({ ids: (await memory.list(scope)).map((m) => m.id) }, scope)
          : await memory.forget({ kind: kind as MemoryKind }, scope);
      return c.json({ deleted });
    },
  });
}
