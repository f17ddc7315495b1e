import { z } from "zod";
import { functionTool } from "../function-tool.js";
import { ToolError } from "../tool-error.js";
import type { Tool } from "../types.js";
import { listSkillFiles } from "./files.js";
import { readSkillFile, type Skill } from "./skill.js";

/** The system-prompt section naming each skill and when to use it; empty when there are none. */
export function skillsPrompt(skills: readonly Skill[]): string {
  if (skills.length === 0) return "";
  return [
    "# Skills",
    "Skills are folders of instructions, scripts and resources for specialised tasks. When a task matches a " +
      "skill's description, call the Skill tool with its name before you start, then follow the instructions it returns.",
    "",
    ...skills.map((skill) => `- ${skill.name}: ${skill.description.replaceAll("\n", " ")}`),
  ].join("\n");
}

async function describeSkill(skill: Skill): Promise<string> {
  const { instructions } = await readSkillFile(skill.file).catch((error: unknown) => {
    throw new ToolError(
      `skill "${skill.name}" could not be read from ${skill.file}: ${error instanceof Error ? error.message : String(error)}`,
    );
  });
  const { files, truncated } = await listSkillFiles(skill.dir);
  const parts = [`Skill "${skill.name}"`, `Base directory: ${skill.dir}`, "", instructions];
  if (files.length > 0) {
    parts.push(
      "",
      "Files in this skill (read them with the Read tool when the instructions call for them; relative paths in " +
        "the instructions are relative to the base directory):",
      ...files.map((file) => `- ${file}`),
    );
    if (truncated) parts.push(`- ... more files in ${skill.dir}`);
  }
  return parts.join("\n");
}

/**
 * The read-only `Skill` tool: given a skill's name, returns its SKILL.md instructions (read fresh
 * from disk), its base directory and its files. Other files are read with the Read tool, so they
 * go through the permission engine.
 */
export function skillTool(skills: readonly Skill[]): Tool<{ skill: string }> {
  const byName = new Map(skills.map((skill) => [skill.name, skill]));
  const names = [...byName.keys()];
  const skillName =
    names.length > 0
      ? z.enum(names as [string, ...string[]])
      : z.string().describe("no skills are installed");
  return functionTool({
    name: "Skill",
    description:
      "Loads a skill's instructions by name. Call it when the task matches a skill listed in the system prompt, " +
      "before doing the task. It returns the instructions, the skill's base directory and its files.",
    input: z.object({ skill: skillName.describe("the skill's name") }),
    readOnly: true,
    execute: async ({ skill: name }) => {
      const skill = byName.get(name);
      if (!skill) throw new ToolError(`no skill named "${name}"; available: ${names.join(", ") || "none"}`);
      return describeSkill(skill);
    },
  });
}
