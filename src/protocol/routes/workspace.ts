import { answer, type Route } from "../route.js";
import type { WorkspaceListing } from "../workspace-types.js";

/** A session's workspace files. */
export const WORKSPACE_ROUTES = {
  listWorkspaceFiles: {
    method: "GET",
    path: "/v1/sessions/{id}/workspace/files",
    summary: "A directory of the session's workspace (404 on a server without workspaces)",
    auth: "bearer",
    query: {
      path: { type: "string", description: "the directory, relative to the workspace (default the root)" },
      recursive: { type: "string", description: "`1`: everything under it" },
    },
    answer: answer<WorkspaceListing>(200, "`{ path, entries, truncated }`"),
  },
  downloadWorkspaceFile: {
    method: "GET",
    path: "/v1/sessions/{id}/workspace/file",
    summary: "One file of the session's workspace",
    auth: "bearer",
    query: { path: { type: "string", description: "the file, relative to the workspace" } },
    answer: answer<Blob>(200, "The file's bytes (application/octet-stream, as an attachment)", "bytes"),
  },
} as const satisfies Record<string, Route>;
