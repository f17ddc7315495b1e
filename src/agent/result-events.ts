import { createEvent, type EventInit } from "../event/index.js";
import type { ToolCallBlock } from "../message/index.js";
import { replaceUnstorableChars } from "../state/index.js";
import type { ReplyRun } from "./reply-run.js";
import type { OutputPart } from "./tool-output.js";

/** Tool output as TOOL_RESULT_TEXT_DELTA / TOOL_RESULT_DATA_DELTA events of the open result of `toolCallId`. */
export function emitOutput(run: ReplyRun, toolCallId: string, parts: OutputPart[]): void {
  for (const part of parts) {
    if (part.kind === "text") {
      // Text a store cannot hold (NUL, lone surrogates) is replaced here, so the event and the state agree.
      if (part.text !== "") {
        run.emit("TOOL_RESULT_TEXT_DELTA", { toolCallId, delta: replaceUnstorableChars(part.text) });
      }
      continue;
    }
    const { source, id, name } = part.block;
    const init: EventInit<"TOOL_RESULT_DATA_DELTA"> = {
      replyId: run.msg.id,
      toolCallId,
      blockId: id,
      mediaType: source.mediaType ?? "application/octet-stream",
    };
    if (source.type === "base64") init.data = source.data;
    else init.url = source.url;
    if (name !== undefined) init.name = name;
    run.push(createEvent("TOOL_RESULT_DATA_DELTA", init));
  }
}

/** A whole result written at once (errors, denials, interruptions): START, one text delta, END. */
export function writeResult(
  run: ReplyRun,
  call: ToolCallBlock,
  state: "error" | "denied" | "interrupted",
  text: string,
): void {
  run.emit("TOOL_RESULT_START", { toolCallId: call.id, toolCallName: call.name });
  run.emit("TOOL_RESULT_TEXT_DELTA", { toolCallId: call.id, delta: text });
  run.emit("TOOL_RESULT_END", { toolCallId: call.id, state });
}
