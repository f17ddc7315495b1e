import { describe, expect, it } from "vitest";
import { Agent } from "../../src/agent/index.js";
import type { AgentEvent } from "../../src/event/index.js";
import { textOf, userMsg } from "../../src/message/index.js";
import { ScriptedModel } from "../../src/testing/index.js";

describe("replyStream goes at its reader's pace", () => {
  it("runs nothing ahead of what was read: a reader that stops after REPLY_START leaves the model uncalled", async () => {
    const model = new ScriptedModel([{ text: "never" }, { text: "second" }]);
    const agent = new Agent({ name: "a", model });
    for await (const event of agent.replyStream(userMsg("hi"))) {
      expect(event.type).toBe("REPLY_START");
      break;
    }
    expect(model.calls).toHaveLength(0);
    // The stopped run has ended: the next reply runs (and repairs the cut-off one first).
    expect(textOf(await agent.reply(userMsg("again")))).toBe("never");
  });

  it("a reader that stops mid-stream stops the model's stream there", async () => {
    const model = new ScriptedModel([{ text: "one two three four five six seven eight" }], { chunkSize: 1 });
    const agent = new Agent({ name: "a", model });
    const seen: AgentEvent[] = [];
    for await (const event of agent.replyStream(userMsg("hi"))) {
      seen.push(event);
      if (event.type === "TEXT_BLOCK_DELTA") break;
    }
    const reply = agent.state.context.at(-1)!;
    expect(reply.finishedReason).toBeUndefined();
    expect(textOf(reply).length).toBeLessThan("one two three four five six seven eight".length);
  });

  it("replyTo pushes the same events in the same order", async () => {
    const script = () => new ScriptedModel([{ text: "hello there" }]);
    const pulled: string[] = [];
    for await (const e of new Agent({ name: "a", model: script() }).replyStream(userMsg("hi")))
      pulled.push(e.type);
    const pushed: string[] = [];
    await new Agent({ name: "a", model: script() }).replyTo(userMsg("hi"), (e) => pushed.push(e.type));
    expect(pushed).toEqual(pulled);
    expect(pushed.at(-1)).toBe("REPLY_END");
  });
});
