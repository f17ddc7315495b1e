import type { ForgetResult, MemoryList, MemoryNotes } from "../memory-types.js";
import { answer, type Route } from "../route.js";

const agentQuery = {
  agent: { type: "string" as const, description: "an agent's name (letters, digits, _ . -)" },
};

/** What the service remembers about a user: memories and the Memory tool's notes. */
export const MEMORY_ROUTES = {
  listMemoryNotes: {
    method: "GET",
    path: "/v1/memories/notes",
    summary: "The notes the Memory tool keeps for you",
    auth: "bearer",
    query: agentQuery,
    answer: answer<MemoryNotes>(200, "`{ enabled, files: [{ path, size, text }] }`"),
  },
  deleteMemoryNote: {
    method: "DELETE",
    path: "/v1/memories/notes",
    summary: "Delete one note",
    auth: "bearer",
    query: { ...agentQuery, path: { type: "string", description: "the note, e.g. /memories/prefs.md" } },
    answer: answer<undefined>(204, "deleted"),
  },
  listMemories: {
    method: "GET",
    path: "/v1/memories",
    summary: "What the service remembers about you",
    auth: "bearer",
    query: agentQuery,
    answer: answer<MemoryList>(200, "`{ enabled, memories: MemoryRecord[] }`"),
  },
  deleteMemory: {
    method: "DELETE",
    path: "/v1/memories/{id}",
    summary: "Forget one memory",
    auth: "bearer",
    answer: answer<undefined>(204, "forgotten"),
  },
  forgetMemories: {
    method: "DELETE",
    path: "/v1/memories",
    summary: "Forget all your memories (or all of one kind)",
    auth: "bearer",
    query: { kind: { type: "string", description: "`fact` or `preference`" } },
    answer: answer<ForgetResult>(200, "`{ deleted }`"),
  },
} as const satisfies Record<string, Route>;
