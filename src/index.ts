export * from "./agent/index.js";
export * from "./event/index.js";
export * from "./message/index.js";
export * from "./model/core.js";
export * from "./permission/index.js";
export * from "./state/index.js";
export * from "./tool/index.js";
