import type { UiMessageChunk } from "../../../protocol/index.js";
import type { BridgeFrames } from "../follow-stream.js";
import { finishUi, translateUiEvent, type UiTranslation, uiDone } from "./ui-message-translation.js";

const frame = (chunk: UiMessageChunk) => `data: ${JSON.stringify(chunk)}\n\n`;

/**
 * The SSE frames of a UI message stream: one `data:` frame per chunk, `: keep-alive` comments, and
 * at the end the `finish` (or `error`) chunk and `data: [DONE]`, as the AI SDK's own server writes
 * them. A pause that no answer follows by the next keep-alive ends the stream (a replay that reaches
 * a pause answered since goes on through the answer).
 */
export function uiMessageFrames(t: UiTranslation): BridgeFrames {
  let settled = false;
  return {
    event: (event) => translateUiEvent(t, event).map(frame).join(""),
    heartbeat() {
      if (t.paused !== undefined) settled = true;
      return ": keep-alive\n\n";
    },
    finish: (error) => `${finishUi(t, error?.message).map(frame).join("")}data: [DONE]\n\n`,
    done: () => uiDone(t) || settled,
  };
}
