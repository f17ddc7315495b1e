export * from "./backoff.js";
export * from "./client.js";
export * from "./confirm-request.js";
export * from "./errors.js";
export * from "./event-stream.js";
export * from "./local-user-msg.js";
export * from "./session-view.js";
export * from "./types.js";
