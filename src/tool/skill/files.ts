import { readdir } from "node:fs/promises";
import { join } from "node:path";

const SKIPPED = new Set(["node_modules", "__pycache__"]);

/**
 * The files in a skill folder (absolute paths, sorted, breadth first), without hidden entries,
 * node_modules and the SKILL.md itself; at most `limit`, with `truncated` saying if there were more.
 */
export async function listSkillFiles(
  dir: string,
  limit = 200,
  maxDepth = 6,
): Promise<{ files: string[]; truncated: boolean }> {
  const files: string[] = [];
  let level = [dir];
  for (let depth = 0; depth < maxDepth && level.length > 0; depth += 1) {
    const next: string[] = [];
    for (const folder of level) {
      const entries = await readdir(folder, { withFileTypes: true }).catch(() => []);
      entries.sort((a, b) => a.name.localeCompare(b.name));
      for (const entry of entries) {
        if (entry.name.startsWith(".") || SKIPPED.has(entry.name)) continue;
        const path = join(folder, entry.name);
        if (entry.isDirectory()) next.push(path);
        else if (!(depth === 0 && entry.name === "SKILL.md")) {
          if (files.length === limit) return { files, truncated: true };
          files.push(path);
        }
      }
    }
    level = next;
  }
  return { files, truncated: false };
}
