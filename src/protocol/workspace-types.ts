/** One entry of a session's workspace listing (`GET /v1/sessions/:id/workspace/files`). */
export interface WorkspaceEntry {
  /** Relative to the workspace root, `/`-separated. */
  path: string;
  /** A symlink is listed, not followed. */
  type: "file" | "directory" | "symlink" | "other";
  /** Bytes (files); 0 for the rest. */
  size: number;
  /** ISO 8601. */
  modifiedAt: string;
}

/** A directory of a session's workspace; `truncated` when the service cut it at its limit (5,000). */
export interface WorkspaceListing {
  /** The directory listed, as asked (`.` = the root). */
  path: string;
  /** Sorted by path. */
  entries: WorkspaceEntry[];
  truncated: boolean;
}
