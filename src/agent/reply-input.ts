import type { InputEvent } from "../event/index.js";
import type { Msg } from "../message/index.js";

/** What a reply can start from: new messages, an answer to a pause, or nothing (continue). */
export type ReplyInput = Msg | Msg[] | InputEvent | undefined;
