import type { Msg } from "../message/index.js";

export type * from "../protocol/memory-types.js";
export type * from "../protocol/reply-types.js";
export type * from "../protocol/session-types.js";
export type * from "../protocol/workspace-types.js";

/** What `send` takes: plain text (one user message), one user Msg or several. */
export type SendInput = string | Msg | Msg[];
