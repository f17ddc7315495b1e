import { describe, expect, it } from "vitest";
import { type AgentScopeError, userMsg } from "../../src/message/index.js";
import type { ResponseFormat } from "../../src/model/types.js";
import { collect } from "./helpers/collect-stream.js";
import type { TextWire } from "./helpers/openai-wire.js";
import { casesWith } from "./helpers/provider-cases.js";
import { wireServerForFile } from "./helpers/wire-server.js";

const SCHEMA = {
  type: "object",
  properties: { city: { type: "string" }, celsius: { type: "number" } },
  required: ["city", "celsius"],
  additionalProperties: false,
};
const FORMAT: ResponseFormat = { type: "json_schema", name: "weather", schema: SCHEMA };
const ANSWER = ['{"city":"Paris",', '"celsius":21}'];
const usage = { input: 5, output: 9 };

const wire = wireServerForFile();

function serve(frames: TextWire) {
  wire.queue({ frames: [...frames.open, ...frames.deltas, ...frames.close] });
}
const sent = () => wire.requests[0]?.body as Record<string, unknown>;
const textOf = (final: Awaited<ReturnType<typeof collect>>["final"]) =>
  final.content.flatMap((b) => (b.type === "text" ? [b.text] : [])).join("");

/** Every provider (helpers/provider-cases.ts): those with native structured output, and those without. */
const CASES = casesWith("structuredOutput");
const NATIVE = CASES.flatMap(({ name, textWire, structuredOutput: { create, native } }) =>
  native ? [[name, create, textWire(ANSWER, usage), native.pick] as const] : [],
);
const EXPECTED: Record<string, unknown> = Object.fromEntries(
  CASES.flatMap(({ name, structuredOutput: { native } }) =>
    native ? [[name, native.expected(SCHEMA)]] : [],
  ),
);

describe.each(NATIVE)("%s native structured output", (name, create, frames, pick) => {
  it("sends the schema the provider's way and returns the JSON text", async () => {
    serve(frames);
    const { final } = await collect(
      create(wire.url).stream([userMsg("weather in Paris")], { responseFormat: FORMAT }),
    );
    expect(pick(sent())).toEqual(EXPECTED[name]);
    expect(JSON.parse(textOf(final))).toEqual({ city: "Paris", celsius: 21 });
  });

  it("rejects a bad schema name before sending", async () => {
    const stream = create(wire.url).stream([userMsg("x")], {
      responseFormat: { ...FORMAT, name: "has spaces" },
    });
    const error = (await collect(stream).catch((e: unknown) => e)) as AgentScopeError;
    expect(error.info.type).toBe("invalid_request");
    expect(error.message).toContain("responseFormat name");
    expect(wire.requests).toHaveLength(0);
  });
});

describe.each(
  CASES.flatMap(({ name, textWire, structuredOutput: { create, native } }) =>
    native ? [] : [[name, create, textWire(["x"], usage)] as const],
  ),
)("%s without native structured output", (_name, create, frames) => {
  it("rejects responseFormat and points at the tool mode, sending nothing", async () => {
    serve(frames);
    const error = (await collect(create(wire.url).stream([userMsg("x")], { responseFormat: FORMAT })).catch(
      (e: unknown) => e,
    )) as AgentScopeError;
    expect(error.info.type).toBe("invalid_request");
    expect(error.message).toContain("injected-tool structured output");
    expect(wire.requests).toHaveLength(0);
  });
});
