export * from "./estimate-tokens.js";
export * from "./types.js";
