import { type Msg, textOf } from "../message/index.js";

/** The text of a reply's last step: the text blocks after its last tool call or result (all text if none). */
export function finalText(msg: Pick<Msg, "content">): string {
  let start = 0;
  for (let i = msg.content.length - 1; i >= 0; i--) {
    const type = msg.content[i]!.type;
    if (type === "tool_call" || type === "tool_result") {
      start = i + 1;
      break;
    }
  }
  const tail = textOf({ content: msg.content.slice(start) });
  return tail === "" ? textOf(msg) : tail;
}
