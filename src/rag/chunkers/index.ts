export * from "./chunk-sections.js";
export * from "./chunker.js";
export * from "./markdown.js";
export * from "./markdown-headings.js";
export * from "./paragraph.js";
export * from "./recursive.js";
export * from "./token-window.js";
