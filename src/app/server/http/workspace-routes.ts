import { createReadStream } from "node:fs";
import { stat } from "node:fs/promises";
import { basename } from "node:path";
import { Readable } from "node:stream";
import type { Hono } from "hono";
import { listWorkspaceFiles, WorkspaceFileView, WorkspacePathError } from "../../../workspace/index.js";
import { RequestError } from "../request-error.js";
import type { ServiceRuntime } from "../runtime/service-runtime.js";
import type { WorkspaceManager } from "../workspace-manager.js";
import type { ServiceVariables } from "./auth.js";
import { routesFrom } from "./routes-from.js";

const MAX_LISTED = 5000;

/**
 * A session's workspace files, under the usual auth (another user's session is a 404):
 * `GET /v1/sessions/:id/workspace/files?path=dir&recursive=1` lists a directory,
 * `GET /v1/sessions/:id/workspace/file?path=file` downloads one file. Shapes in docs/workspaces.md.
 */
export function workspaceRoutes(
  runtime: ServiceRuntime,
  manager: WorkspaceManager,
): Hono<{ Variables: ServiceVariables }> {
  const rootOf = async (user: string, sessionId: string) =>
    manager.ensure(await runtime.getSession(user, sessionId));

  return routesFrom({
    listWorkspaceFiles: async (c, request) => {
      const root = await rootOf(c.var.user, request.param("id"));
      const path = c.req.query("path") || ".";
      const recursive = c.req.query("recursive");
      if (recursive !== undefined && recursive !== "0" && recursive !== "1")
        throw new RequestError("invalid_request", "recursive: 0 or 1");
      const entries = await listWorkspaceFiles(root, path, {
        recursive: recursive === "1",
        limit: MAX_LISTED + 1,
        hidden: manager.hidden,
      }).catch(pathError);
      const truncated = entries.length > MAX_LISTED;
      return c.json({ path, entries: entries.slice(0, MAX_LISTED), truncated });
    },

    downloadWorkspaceFile: async (c, request) => {
      const root = await rootOf(c.var.user, request.param("id"));
      const path = c.req.query("path");
      if (!path)
        throw new RequestError("invalid_request", "path: the file to download, relative to the workspace");
      // The file tools' view: no hidden (credential) path, no link out, no hard-linked file.
      const view = new WorkspaceFileView(root, manager.hidden);
      const absolute = await view.resolve(path, root).catch(pathError);
      const info = await stat(absolute).catch(() => {
        throw new RequestError("not_found", `${path} does not exist in the workspace`);
      });
      if (!info.isFile()) throw new RequestError("invalid_request", `${path} is not a file`);
      if (!(await view.shows(absolute)))
        throw new RequestError(
          "invalid_request",
          `path: ${path} has more than one hard link; it is not served`,
        );
      const body = Readable.toWeb(createReadStream(absolute)) as ReadableStream<Uint8Array>;
      return new Response(body, {
        headers: {
          "content-type": "application/octet-stream",
          "content-length": String(info.size),
          "content-disposition": `attachment; filename*=UTF-8''${encodeURIComponent(basename(absolute))}`,
          "x-content-type-options": "nosniff",
        },
      });
    },
  });
}

/** A bad or escaping path is the client's mistake (`invalid_request`, or `not_found`); anything else goes on. */
function pathError(error: unknown): never {
  if (WorkspacePathError.isInstance(error)) {
    const missing = /does not exist/.test(error.message);
    throw new RequestError(missing ? "not_found" : "invalid_request", `path: ${error.message}`);
  }
  throw error;
}
