export * from "./core.js";
