import { fileURLToPath } from "node:url";

/** The path after a local store's scheme: `sqlite:./a.db`, or a file URL's `sqlite:///abs/a.db`. */
export function localPath(rest: string): string {
  return rest.startsWith("//") ? fileURLToPath(`file:${rest}`) : rest;
}
