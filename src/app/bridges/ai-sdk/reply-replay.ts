import type { EventLog } from "../../../state/service/index.js";

const PAGE = 256;

/**
 * The log position just before the reply began (its REPLY_START), searched back from `last` a page
 * at a time, so a resumed stream replays the whole reply — text before a pause included — and
 * nothing of the replies before it. A reply whose start the log no longer keeps is followed from
 * the oldest event kept.
 */
export async function replyReplayPoint(
  events: EventLog,
  sessionId: string,
  replyId: string,
  last: number,
): Promise<number> {
  const first = await events.firstSeq(sessionId);
  for (let end = last; end >= first && end > 0; end -= PAGE) {
    const after = Math.max(end - PAGE, first - 1, 0);
    const page = await events.read(sessionId, after, end - after);
    const start = page.findLast(
      (logged) => logged.event.type === "REPLY_START" && logged.event.replyId === replyId,
    );
    if (start) return start.seq - 1;
  }
  return Math.max(first - 1, 0);
}
