import { describe, expect, it } from "vitest";
import { Agent, type AgentOptions } from "../../src/agent/index.js";
import { textOf, userMsg, ValidationError } from "../../src/message/index.js";
import { SpecChatModel } from "../../src/model/index.js";
import { ScriptedModel } from "../../src/testing/index.js";
import { chatCompletionFrames } from "../model/helpers/openai-wire.js";
import { wireServerForFile } from "../model/helpers/wire-server.js";
import { weather } from "./helpers.js";

/** What a JavaScript caller can pass: anything (no compiler to stop them). */
const build = (options: unknown) => () => new Agent(options as AgentOptions);
const model = () => new ScriptedModel([{ text: "hi" }]);

describe("Agent options are checked at construction (JavaScript callers)", () => {
  it("an unknown key is an error with a did-you-mean", () => {
    expect(build({ name: "a", model: model(), sytemPrompt: "Be brief." })).toThrow(
      /Agent options: sytemPrompt: unknown option; did you mean "systemPrompt"\?/,
    );
    expect(build({ name: "a", model: model(), maxIter: 3 })).toThrow(/did you mean "maxIters"/);
  });

  it("a key far from every known one lists the known keys", () => {
    expect(build({ name: "a", model: model(), colour: "blue" })).toThrow(
      /colour: unknown option \(known: name, systemPrompt, model, .*skills\)/,
    );
  });

  it("`tools` is refused with the name the Agent uses: toolkit", () => {
    const make = build({ name: "a", model: model(), tools: [weather] });
    expect(make).toThrow(ValidationError);
    expect(make).toThrow(/tools: unknown option; the Agent takes its tools as `toolkit`/);
    expect(() => new Agent({ name: "a", model: model(), toolkit: [weather] })).not.toThrow();
  });

  it("wrong types are named with the expected and the given type", () => {
    expect(build({ name: "a", model: model(), systemPrompt: 42 })).toThrow(
      /systemPrompt: expected string, got number/,
    );
    expect(build({ name: "a", model: model(), maxIters: 0 })).toThrow(
      /maxIters: expected an integer ≥ 1, got 0/,
    );
    expect(build({ name: "a", model: model(), middlewares: {} })).toThrow(
      /middlewares: expected array, got object/,
    );
    expect(build({ name: "a", model: model(), toolkit: [{ description: "x" }] })).toThrow(
      /toolkit: \[0\]: expected a tool .*got an object with description/,
    );
    expect(build({ name: "a", model: model(), toolkit: [null] })).toThrow(
      /toolkit: \[0\]: expected a tool, got null/,
    );
  });

  it("name and model are required; a model object without the ChatModel methods is named", () => {
    expect(build({ model: model() })).toThrow(/name: is required/);
    expect(build({ name: "  ", model: model() })).toThrow(/name: must not be empty/);
    expect(build({ name: "a" })).toThrow(/model: is required/);
    expect(build({ name: "a", model: { name: "gpt-4o" } })).toThrow(
      /model: expected a ChatModel \(with stream\(\) and countTokens\(\)\) or a model spec such as "openai:gpt-4o-mini"/,
    );
    expect(build({ name: "a", model: 7 })).toThrow(
      /model: expected a ChatModel or a model spec .*, got number/,
    );
    expect(build(null)).toThrow(/expected an options object, got null/);
  });

  it("a bad model spec string fails at construction, naming the known providers", () => {
    expect(build({ name: "a", model: "gpt-4o-mini" })).toThrow(/must be written provider:model/);
    expect(build({ name: "a", model: "opnai:gpt-4o-mini" })).toThrow(
      /unknown provider "opnai" \(known: openai, openai-responses, anthropic/,
    );
    expect(build({ name: "a", model: "openai:gpt-4o-mini", fallbackModel: "nope:x" })).toThrow(
      /unknown provider "nope"/,
    );
  });
});

describe("a model given as a spec string", () => {
  const server = wireServerForFile();

  it("is resolved through modelFromSpec and answers a reply", async () => {
    const wire = chatCompletionFrames(["Hello ", "there"], { input: 5, output: 2 }, "gpt-4o-mini");
    server.queue({ frames: [...wire.open, ...wire.deltas, ...wire.close] });
    const agent = new Agent({
      name: "a",
      model: `openai:gpt-4o-mini@${server.url}/v1`,
      systemPrompt: "Be brief.",
    });
    // A key so the request is sent; the loopback server ignores it.
    const saved = process.env.OPENAI_API_KEY;
    process.env.OPENAI_API_KEY = "sk-test";
    try {
      const reply = await agent.reply(userMsg("hi"), { throwOnError: true });
      expect(textOf(reply)).toBe("Hello there");
    } finally {
      if (saved === undefined) delete process.env.OPENAI_API_KEY;
      else process.env.OPENAI_API_KEY = saved;
    }
    expect(server.requests).toHaveLength(1);
    expect(server.requests[0]!.path).toBe("/v1/chat/completions");
    expect((server.requests[0]!.body as { model: string }).model).toBe("gpt-4o-mini");
  });

  it("reports the spec's provider, name and context size before the provider code is loaded", async () => {
    const spec = new SpecChatModel("anthropic:claude-sonnet-4-5");
    expect([spec.provider, spec.name, spec.contextSize]).toEqual(["anthropic", "claude-sonnet-4-5", 200_000]);
    expect(spec.countTokens([userMsg("hello world")])).toBeGreaterThan(0);
    const built = await spec.load();
    expect(built.constructor.name).toBe("AnthropicModel");
    expect(spec.provider).toBe("anthropic");
  });
});
