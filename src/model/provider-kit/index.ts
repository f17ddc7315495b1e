export * from "./content-assembler.js";
export * from "./lazy-stream.js";
export * from "./media.js";
export * from "./request-body.js";
export * from "./sampling.js";
export * from "./settings.js";
export * from "./tool-input.js";
export * from "./tool-output.js";
