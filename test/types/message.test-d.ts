// The message constructors return plain Msg values whose structuredOutput is unknown.
import { assistantMsg, type ContentBlock, type Msg, systemMsg, userMsg } from "agentscope";
import { describe, expectTypeOf, it } from "vitest";

describe("userMsg and assistantMsg", () => {
  it("return a Msg", () => {
    expectTypeOf(userMsg("hi")).toEqualTypeOf<Msg>();
    expectTypeOf(assistantMsg("hello")).toEqualTypeOf<Msg<unknown>>();
    expectTypeOf(systemMsg("be brief")).toEqualTypeOf<Msg>();
    expectTypeOf(userMsg("hi").content).toEqualTypeOf<ContentBlock[]>();
  });

  it("take text, a block or blocks", () => {
    expectTypeOf(userMsg).parameter(0).toEqualTypeOf<string | ContentBlock | ContentBlock[]>();
    // @ts-expect-error: a number is no content
    userMsg(42);
  });
});
