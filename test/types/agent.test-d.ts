// The reply's generics: `structuredOutput` typed from the schema (ReplyMsg<S>), and what replyStream
// and replyTo return. Type-only: vitest checks this file with tsc and never runs it.
import { type Agent, type AgentEvent, type Msg, type ReplyMsg, userMsg } from "agentscope";
import { describe, expectTypeOf, it } from "vitest";
import { z } from "zod";

declare const agent: Agent;
const Weather = z.object({ city: z.string(), celsius: z.number(), sunny: z.boolean().optional() });

describe("Agent.reply", () => {
  it("types structuredOutput from the schema it is given", () => {
    expectTypeOf(agent.reply(userMsg("weather?"), { structuredOutput: Weather })).resolves.toEqualTypeOf<
      Msg<{ city: string; celsius: number; sunny?: boolean | undefined }>
    >();
    expectTypeOf<ReplyMsg<typeof Weather>["structuredOutput"]>().toEqualTypeOf<
      { city: string; celsius: number; sunny?: boolean | undefined } | undefined
    >();
  });

  it("leaves structuredOutput unknown without a schema", () => {
    expectTypeOf(agent.reply(userMsg("hi"))).resolves.toEqualTypeOf<Msg<unknown>>();
    expectTypeOf<ReplyMsg<undefined>>().toEqualTypeOf<Msg<unknown>>();
  });

  it("takes only a zod schema as structuredOutput", () => {
    // @ts-expect-error: a JSON Schema object is not a zod schema
    void agent.reply(userMsg("hi"), { structuredOutput: { type: "object" } });
  });

  it("reads the typed value without a cast", () => {
    const read = async () =>
      (await agent.reply(userMsg("weather?"), { structuredOutput: Weather })).structuredOutput;
    expectTypeOf(read).returns.resolves.toEqualTypeOf<z.infer<typeof Weather> | undefined>();
    const reply = async () => agent.reply(userMsg("weather?"), { structuredOutput: Weather });
    void (async () => {
      const { structuredOutput } = await reply();
      // @ts-expect-error: the schema has no `fahrenheit`
      return structuredOutput?.fahrenheit;
    })();
  });
});

describe("Agent.replyStream and Agent.replyTo", () => {
  it("replyStream yields AgentEvents", () => {
    const stream = agent.replyStream(userMsg("hi"), { structuredOutput: Weather });
    expectTypeOf(stream).toExtend<AsyncIterable<AgentEvent>>();
    expectTypeOf<Awaited<ReturnType<typeof stream.next>>>().toExtend<IteratorResult<AgentEvent, unknown>>();
  });

  it("replyTo hands each AgentEvent to the callback and resolves to nothing", () => {
    expectTypeOf(agent.replyTo).parameter(1).toEqualTypeOf<(event: AgentEvent) => void>();
    expectTypeOf(agent.replyTo(userMsg("hi"), () => {})).toEqualTypeOf<Promise<void>>();
    // @ts-expect-error: replyTo needs the callback
    void agent.replyTo(userMsg("hi"));
  });
});
