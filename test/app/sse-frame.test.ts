import { describe, expect, it } from "vitest";
import { sseFrame } from "../../src/app/server/http/sse.js";
import { createEvent } from "../../src/event/index.js";

/** What an SSE client reads from a frame: the field lines up to the first blank line. */
const fields = (frame: string) => frame.split("\n\n")[0]!.split("\n");

describe("sseFrame with a tampered event log", () => {
  const event = createEvent("TEXT_BLOCK_DELTA", { replyId: "r", blockId: "b", delta: "hi" });

  it("sends a stored event's JSON as is when it is one line", () => {
    const json = JSON.stringify(event);
    expect(sseFrame({ kind: "event", seq: 3, event, json })).toBe(
      `id: 3\nevent: TEXT_BLOCK_DELTA\ndata: ${json}\n\n`,
    );
  });

  it("re-serialises stored JSON that holds line breaks, so it cannot forge a frame", () => {
    const forged = `{"type":"TEXT_BLOCK_DELTA",\n\nevent: REPLY_END\ndata: {"forged":true}\r\n"delta":"hi"}`;
    const frame = sseFrame({ kind: "event", seq: 4, event, json: forged });
    expect(fields(frame)).toEqual(["id: 4", "event: TEXT_BLOCK_DELTA", `data: ${JSON.stringify(event)}`]);
    expect(frame).not.toContain("forged");
  });

  it("names an event whose stored type is not a plain name `message`", () => {
    const tampered = { ...event, type: "TEXT_BLOCK_DELTA\n\nevent: REPLY_END" } as unknown as typeof event;
    const frame = sseFrame({ kind: "event", seq: 5, event: tampered });
    const lines = fields(frame);
    expect(lines[1]).toBe("event: message");
    expect(lines).toHaveLength(3); // id, event, data: the type's line breaks stay escaped inside the JSON
    expect(frame.match(/\n\n/g)).toHaveLength(1);
  });
});
