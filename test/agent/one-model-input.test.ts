import { describe, expect, it } from "vitest";
import { Agent, type Middleware } from "../../src/agent/index.js";
import type { Msg } from "../../src/message/index.js";
import { userMsg } from "../../src/message/index.js";
import type { ChatOptions, ToolSchema } from "../../src/model/core.js";
import { ScriptedModel } from "../../src/testing/index.js";
import { weather } from "./helpers.js";

/** A scripted model that keeps the very arrays it was given to count and to answer. */
class WatchedModel extends ScriptedModel {
  readonly counted: Msg[][] = [];
  readonly sent: Msg[][] = [];

  override countTokens(messages: Msg[], tools?: ToolSchema[]): number {
    this.counted.push(messages);
    return super.countTokens(messages, tools);
  }

  override stream(messages: Msg[], options?: ChatOptions) {
    this.sent.push(messages);
    return super.stream(messages, options);
  }
}

describe("one model input per iteration", () => {
  it("runs every middleware systemPrompt hook once per model call", async () => {
    const runs: string[] = [];
    const prompter = (name: string): Middleware => ({
      name,
      systemPrompt: (prompt) => {
        runs.push(name);
        return `${prompt}\n${name}`;
      },
    });
    const model = new ScriptedModel([
      { toolCalls: [{ name: "get_weather", input: { city: "Paris" } }] },
      { text: "sunny" },
    ]);
    const agent = new Agent({
      name: "a",
      systemPrompt: "You help.",
      model,
      toolkit: [weather],
      middlewares: [prompter("outer"), prompter("inner")],
    });
    await agent.reply(userMsg("weather?"));
    expect(model.calls).toHaveLength(2);
    expect(runs).toEqual(["outer", "inner", "outer", "inner"]);
    expect(model.calls[1]!.messages[0]!.content[0]).toMatchObject({ text: "You help.\nouter\ninner" });
  });

  it("counts for the compression check the very input the model is then sent", async () => {
    const model = new WatchedModel([
      { toolCalls: [{ name: "get_weather", input: { city: "Paris" } }] },
      { text: "sunny" },
    ]);
    const agent = new Agent({ name: "a", systemPrompt: "You help.", model, toolkit: [weather] });
    await agent.reply(userMsg("weather?"));
    expect(model.sent).toHaveLength(2);
    expect(model.counted).toHaveLength(2);
    for (const [i, messages] of model.sent.entries()) expect(model.counted[i]).toBe(messages);
  });
});
