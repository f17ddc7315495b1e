import { describe, expect, it } from "vitest";
import { type AgentScopeError, userMsg } from "../../src/message/index.js";
import type { ChatModel, SamplingOptions } from "../../src/model/types.js";
import { casesWith } from "./helpers/provider-cases.js";
import { wireServerForFile } from "./helpers/wire-server.js";

/** Every sampling option, with values the checks accept. */
const ALL: Required<SamplingOptions> = {
  topP: 0.9,
  topK: 40,
  stopSequences: ["\n\nUser:"],
  seed: 7,
  presencePenalty: 0.5,
  frequencyPenalty: -0.5,
};

const usage = { input: 3, output: 2 };
/** One entry per provider that samples (helpers/provider-cases.ts). */
const CASES = casesWith("sampling").map(({ name, textWire, sampling }) => ({
  name,
  wire: textWire(["ok"], usage),
  ...sampling,
}));

const wire = wireServerForFile();

async function drain(model: ChatModel, options: SamplingOptions = {}) {
  for await (const _ of model.stream([userMsg("hi")], options)) {
    // read to the end
  }
}

describe.each(CASES)("$name", (provider) => {
  const supported = Object.fromEntries(
    Object.entries(ALL).filter(([key]) => !provider.unsupported.includes(key as keyof SamplingOptions)),
  ) as SamplingOptions;
  const frames = [...provider.wire.open, ...provider.wire.deltas, ...provider.wire.close];
  const sentOptions = () => {
    const body = wire.requests[0]?.body as Record<string, unknown>;
    return (provider.section ? body[provider.section] : body) as Record<string, unknown>;
  };

  it("sends every sampling option it has under the provider's names", async () => {
    wire.queue({ frames });
    await drain(provider.create(wire.url), supported);
    expect(sentOptions()).toMatchObject(provider.expected);
  });

  it("takes model defaults and lets a call override them", async () => {
    wire.queue({ frames });
    const stops = !provider.unsupported.includes("stopSequences");
    const defaults: SamplingOptions = stops ? { topP: 0.5, stopSequences: ["END"] } : { topP: 0.5 };
    await drain(provider.create(wire.url, defaults), { topP: 0.25 });
    const sent = Object.values(sentOptions());
    expect(sent).toContain(0.25);
    expect(sent).not.toContain(0.5);
    if (stops) expect(sent).toContainEqual(["END"]);
  });

  it("rejects an out-of-range value, naming the option", async () => {
    const error = (await drain(provider.create(wire.url), { topP: 1.5 }).catch(
      (e: unknown) => e,
    )) as AgentScopeError;
    expect(error.info.type).toBe("invalid_request");
    expect(error.message).toMatch(/`topP` must be a number from 0 to 1, got 1\.5/);
    expect(wire.requests).toHaveLength(0);
  });
});

describe.each(CASES.filter((c) => c.unsupported.length > 0))("$name without some options", (provider) => {
  it("rejects the options it does not have, naming them, and sends nothing", async () => {
    const error = (await drain(provider.create(wire.url), ALL).catch((e: unknown) => e)) as AgentScopeError;
    expect(error.info.type).toBe("invalid_request");
    for (const field of provider.unsupported) expect(error.message).toContain(`\`${field}\``);
    expect(error.message).toContain("extraBody");
    expect(wire.requests).toHaveLength(0);
  });
});
