export { listSkillFiles } from "./files.js";
export {
  type FrontMatter,
  FrontMatterError,
  type FrontMatterValue,
  parseFrontMatter,
} from "./front-matter.js";
export { loadSkills, readSkillFile, SKILL_FILE, type Skill } from "./skill.js";
export { skillsPrompt, skillTool } from "./skill-tool.js";
