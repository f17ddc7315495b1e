// AgentEvent is a union discriminated by `type`: checking `type` narrows to that event's fields.
import type { AgentEvent, ModelCallEndEvent, TextBlockDeltaEvent, ToolCallEndEvent } from "agentscope";
import { describe, expectTypeOf, it } from "vitest";

declare const event: AgentEvent;

describe("AgentEvent", () => {
  it("narrows by type", () => {
    if (event.type === "TEXT_BLOCK_DELTA") {
      expectTypeOf(event).toEqualTypeOf<TextBlockDeltaEvent>();
      expectTypeOf(event.delta).toBeString();
    }
    if (event.type === "MODEL_CALL_END") {
      expectTypeOf(event).toEqualTypeOf<ModelCallEndEvent>();
      expectTypeOf(event.inputTokens).toBeNumber();
    }
    if (event.type === "TOOL_CALL_END") expectTypeOf(event).toEqualTypeOf<ToolCallEndEvent>();
  });

  it("narrows with Extract as well", () => {
    expectTypeOf<Extract<AgentEvent, { type: "TOOL_CALL_END" }>>().toEqualTypeOf<ToolCallEndEvent>();
  });

  it("names every type it can be, and no other", () => {
    expectTypeOf<"TEXT_BLOCK_DELTA">().toExtend<AgentEvent["type"]>();
    expectTypeOf<"NOT_AN_EVENT">().not.toExtend<AgentEvent["type"]>();
    // @ts-expect-error: "TEXT_DELTA" is no event type
    if (event.type === "TEXT_DELTA") void event;
  });

  it("keeps fields of other events out of reach until narrowed", () => {
    // @ts-expect-error: `delta` exists on some events only
    void event.delta;
    if (event.type === "MODEL_CALL_END") {
      // @ts-expect-error: MODEL_CALL_END has no `delta`
      void event.delta;
    }
  });
});
