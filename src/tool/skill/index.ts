export * from "./files.js";
export * from "./front-matter.js";
export * from "./skill.js";
export * from "./skill-tool.js";
