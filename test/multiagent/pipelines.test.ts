import { describe, expect, it } from "vitest";
import { z } from "zod";
import { Agent } from "../../src/agent/index.js";
import { foldEvents, userConfirmResult } from "../../src/event/index.js";
import { blocksOf, type Msg, textOf, userMsg } from "../../src/message/index.js";
import {
  fanout,
  fanoutStream,
  MsgHub,
  sequential,
  sequentialStream,
  TeamPipeline,
} from "../../src/multiagent/index.js";
import { ScriptedModel } from "../../src/testing/index.js";
import { functionTool } from "../../src/tool/index.js";
import { collect, confirmOf, noteTool, scriptedAgent } from "./helpers.js";

/** Resolves once `count` callers have arrived; fails after 5 s (the callers never met: they ran one by one). */
function rendezvous(count: number) {
  let arrived = 0;
  let open!: () => void;
  const all = new Promise<void>((resolve) => {
    open = resolve;
  });
  return functionTool({
    name: "meet",
    description: "Waits for the others",
    input: z.object({}),
    readOnly: true,
    execute: async () => {
      arrived += 1;
      if (arrived === count) open();
      let timer: NodeJS.Timeout | undefined;
      const late = new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error("the others never arrived")), 5000);
      });
      await Promise.race([all, late]).finally(() => clearTimeout(timer));
      return "met";
    },
  });
}

function leaderWith(steps: ConstructorParameters<typeof ScriptedModel>[0]) {
  return new Agent({ name: "lead", model: new ScriptedModel(steps) });
}

const lastUser = (messages: Msg[]) => textOf(messages.findLast((m) => m.role === "user")!);

const assign = (member: string, prompt: string, id?: string) => ({
  ...(id ? { id } : {}),
  name: "team_assign",
  input: { member, prompt },
});

describe("TeamPipeline", () => {
  it("runs assignments to two members at the same time; each member's answer is the tool result", async () => {
    const meet = rendezvous(2);
    const alice = scriptedAgent(
      "alice",
      [{ toolCalls: [{ name: "meet", input: {} }] }, { text: "alice done" }],
      [meet],
    );
    const bob = scriptedAgent(
      "bob",
      [{ toolCalls: [{ name: "meet", input: {} }] }, { text: "bob done" }],
      [meet],
    );
    const team = new TeamPipeline({
      leader: leaderWith([
        { toolCalls: [assign("alice", "task a"), assign("bob", "task b")] },
        { text: "all done" },
      ]),
      members: [
        { agent: alice, description: "does a" },
        { agent: bob, description: "does b" },
      ],
    });
    const events = await collect(team.replyStream(userMsg("do a and b")));
    const final = team.state.context.at(-1)!;
    expect(final.finishedReason).toBe("completed");
    expect(blocksOf(final, "tool_result").map((r) => [r.state, r.output])).toEqual([
      ["success", "alice done"],
      ["success", "bob done"],
    ]);
    expect(new Set(events.map((e) => e.source))).toEqual(new Set([undefined, "lead/alice", "lead/bob"]));
    expect(foldEvents(events)).toEqual(final);
    // The leader saw the roster in the tool's description and the member enum in its schema.
    const tool = team.leader.toolkit.get("team_assign")!;
    expect(tool.description).toContain("- alice: does a");
    expect(JSON.stringify(tool.inputSchema)).toContain('"enum":["alice","bob"]');
  });

  it("runs two assignments to one member in order, and the member keeps its session between them", async () => {
    const order: string[] = [];
    const step = functionTool({
      name: "step",
      description: "A step",
      input: z.object({ n: z.number() }),
      readOnly: true,
      execute: async ({ n }) => {
        order.push(`start ${n}`);
        await new Promise((resolve) => setImmediate(resolve));
        order.push(`end ${n}`);
        return `step ${n}`;
      },
    });
    const alice = scriptedAgent(
      "alice",
      [
        { toolCalls: [{ name: "step", input: { n: 1 } }] },
        { text: "first done" },
        (messages) => ({
          toolCalls: [{ name: "step", input: { n: messages.filter((m) => m.role === "user").length } }],
        }),
        { text: "second done" },
      ],
      [step],
    );
    const team = new TeamPipeline({
      leader: leaderWith([{ toolCalls: [assign("alice", "one"), assign("alice", "two")] }, { text: "ok" }]),
      members: [{ agent: alice, description: "does steps" }],
    });
    await collect(team.replyStream(userMsg("go")));
    // The second assignment saw both prompts: the member's session carried over.
    expect(order).toEqual(["start 1", "end 1", "start 2", "end 2"]);
    expect(blocksOf(team.state.context.at(-1)!, "tool_result").map((r) => r.output)).toEqual([
      "first done",
      "second done",
    ]);
  });

  it("a member's confirmation pauses the team and its answer comes back to the member", async () => {
    const log: string[] = [];
    const alice = scriptedAgent(
      "alice",
      [{ toolCalls: [{ id: "call_w", name: "write_note", input: { text: "x" } }] }, { text: "written" }],
      [noteTool(log)],
    );
    const team = new TeamPipeline({
      leader: leaderWith([{ toolCalls: [assign("alice", "write x")] }, { text: "team done" }]),
      members: [{ agent: alice, description: "writes" }],
    });
    const ask = confirmOf(await collect(team.replyStream(userMsg("go"))));
    expect(ask.source).toBe("lead/alice");
    expect(log).toEqual([]);
    await collect(
      team.replyStream(
        userConfirmResult({
          replyId: ask.replyId,
          confirmResults: [
            { confirmed: true, toolCall: { id: "call_w", name: "write_note", input: '{"text":"x"}' } },
          ],
        }),
      ),
    );
    expect(log).toEqual(["x"]);
    expect(textOf(team.state.context.at(-1)!)).toContain("team done");
  });

  it("rejects a team with duplicate member names", () => {
    const a = scriptedAgent("a", []);
    expect(
      () =>
        new TeamPipeline({
          leader: leaderWith([]),
          members: [
            { agent: a, description: "" },
            { agent: a, description: "" },
          ],
        }),
    ).toThrow(/two members are named "a"/);
  });
});

describe("MsgHub", () => {
  it("broadcasts what one participant says to the others, with an announcement, add and remove", async () => {
    const alice = scriptedAgent("alice", [{ text: "Hi, I am Alice." }]);
    const bob = scriptedAgent("bob", [
      (messages) => ({ text: `Bob heard: ${messages.map((m) => textOf(m)).join(" | ")}` }),
    ]);
    const carol = scriptedAgent("carol", []);
    const hub = new MsgHub([alice, bob, carol], { announcement: userMsg("Topic: introductions") });
    expect(alice.state.context.map(textOf)).toEqual(["Topic: introductions"]);
    hub.remove("carol");
    await hub.reply(alice);
    // Bob observed Alice's reply (its text, under her name); Carol had left.
    expect(bob.state.context.map((m) => [m.name, textOf(m)])).toEqual([
      [bob.state.context[0]!.name, "Topic: introductions"],
      ["alice", "Hi, I am Alice."],
    ]);
    expect(carol.state.context.map(textOf)).toEqual(["Topic: introductions"]);
    const bobSays = await hub.reply("bob");
    expect(textOf(bobSays)).toContain("Hi, I am Alice.");
    expect(alice.state.context.at(-1)).toMatchObject({ name: "bob" });
    hub.add(carol);
    expect(() => hub.add(carol)).toThrow(/already in the hub/);
    hub.broadcast(userMsg("bye"));
    expect(textOf(carol.state.context.at(-1)!)).toBe("bye");
  });
});

describe("sequential and fanout", () => {
  it("sequential feeds each agent the previous one's answer; the stream carries sources", async () => {
    const upper = scriptedAgent("upper", [(m) => ({ text: lastUser(m).toUpperCase() })]);
    const exclaim = scriptedAgent("exclaim", [(m) => ({ text: `${lastUser(m)}!` })]);
    expect(textOf(await sequential([upper, exclaim], userMsg("hello")))).toBe("HELLO!");

    const a = scriptedAgent("a", [{ text: "one" }]);
    const b = scriptedAgent("b", [(m) => ({ text: `${lastUser(m)} two` })]);
    const events = await collect(sequentialStream([a, b], userMsg("go")));
    expect(events.filter((e) => e.type === "REPLY_START").map((e) => e.source)).toEqual(["a", "b"]);
    expect(textOf(b.state.context.at(-1)!)).toBe("one two");
  });

  it("fanout gives every agent the same input at the same time", async () => {
    const meet = rendezvous(2);
    const x = scriptedAgent("x", [{ toolCalls: [{ name: "meet", input: {} }] }, { text: "x" }], [meet]);
    const y = scriptedAgent("y", [{ toolCalls: [{ name: "meet", input: {} }] }, { text: "y" }], [meet]);
    const replies = await fanout([x, y], userMsg("both"));
    expect(replies.map(textOf)).toEqual(["x", "y"]);

    const p = scriptedAgent("p", [{ text: "p" }]);
    const q = scriptedAgent("q", [{ text: "q" }]);
    const events = await collect(fanoutStream([p, q], userMsg("both")));
    expect(new Set(events.map((e) => e.source))).toEqual(new Set(["p", "q"]));
    expect(events.filter((e) => e.type === "REPLY_END")).toHaveLength(2);
  });
});
