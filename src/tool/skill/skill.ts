import { readdir, readFile, stat } from "node:fs/promises";
import { join, resolve } from "node:path";
import { FrontMatterError, type FrontMatterValue, parseFrontMatter } from "./front-matter.js";

/** A skill: a folder with a SKILL.md whose front matter names and describes it. Plain JSON data. */
export interface Skill {
  name: string;
  /** When to use it; goes into the system prompt. */
  description: string;
  /** Absolute path of the skill's folder. */
  dir: string;
  /** Absolute path of its SKILL.md. */
  file: string;
  /** The other front-matter keys (license, allowed-tools, metadata, ...). */
  metadata: Record<string, FrontMatterValue>;
}

export const SKILL_FILE = "SKILL.md";
const MAX_NAME = 64;
const MAX_DESCRIPTION = 1024;

/** Reads and checks a SKILL.md: its front matter and the instructions after it. */
export async function readSkillFile(file: string): Promise<{ skill: Skill; instructions: string }> {
  const { data, body } = parseFrontMatter(await readFile(file, "utf8"), file);
  const { name, description, ...metadata } = data;
  if (typeof name !== "string" || name.trim() === "") {
    throw new FrontMatterError(file, "the front matter needs `name: <skill-name>` (a non-empty string)");
  }
  if (name.length > MAX_NAME || /\s/.test(name)) {
    throw new FrontMatterError(file, `name "${name}" must be at most ${MAX_NAME} characters with no spaces`);
  }
  if (typeof description !== "string" || description.trim() === "") {
    throw new FrontMatterError(
      file,
      "the front matter needs `description: <what the skill does and when to use it>`",
    );
  }
  if (description.length > MAX_DESCRIPTION) {
    throw new FrontMatterError(
      file,
      `description is ${description.length} characters; keep it to ${MAX_DESCRIPTION}`,
    );
  }
  const dir = resolve(file, "..");
  return { skill: { name, description: description.trim(), dir, file, metadata }, instructions: body.trim() };
}

async function isFile(path: string): Promise<boolean> {
  return stat(path).then(
    (s) => s.isFile(),
    () => false,
  );
}

/** The SKILL.md files of one directory: its own, or else those of its immediate subfolders. */
async function skillFilesIn(dir: string): Promise<string[]> {
  const info = await stat(dir).catch((error: NodeJS.ErrnoException) => {
    if (error.code === "ENOENT") return undefined;
    throw error;
  });
  if (!info) return [];
  if (!info.isDirectory()) throw new Error(`skills directory ${dir} is not a directory`);
  const own = join(dir, SKILL_FILE);
  if (await isFile(own)) return [own];
  const entries = (await readdir(dir)).filter((entry) => !entry.startsWith(".")).sort();
  const candidates = entries.map((entry) => join(dir, entry, SKILL_FILE));
  const present = await Promise.all(candidates.map(isFile));
  return candidates.filter((_, i) => present[i]);
}

/**
 * Loads the skills in `dirs`, each either a skill folder or a folder of skill folders. Directories
 * that do not exist are skipped. List them highest priority first: when two directories hold a
 * skill of the same name the first wins; the same name twice in one directory is an error.
 */
export async function loadSkills(dirs: string | string[]): Promise<Skill[]> {
  const byName = new Map<string, Skill>();
  for (const dir of Array.isArray(dirs) ? dirs : [dirs]) {
    const files = await skillFilesIn(resolve(dir));
    const skills = await Promise.all(files.map(async (file) => (await readSkillFile(file)).skill));
    const here = new Map<string, Skill>();
    for (const skill of skills) {
      const twin = here.get(skill.name);
      if (twin)
        throw new FrontMatterError(skill.file, `skill name "${skill.name}" is also used by ${twin.file}`);
      here.set(skill.name, skill);
      if (!byName.has(skill.name)) byName.set(skill.name, skill);
    }
  }
  return [...byName.values()];
}
