import { describe, expect, it } from "vitest";
import { z } from "zod";
import { Agent } from "../../src/agent/index.js";
import { blocksOf, userMsg } from "../../src/message/index.js";
import { ScriptedModel } from "../../src/testing/index.js";
import {
  functionTool,
  jsonSchemaTool,
  ToolInputError,
  Toolkit,
  ToolNameCollisionError,
} from "../../src/tool/index.js";
import { collect, shape } from "../agent/helpers.js";

const echo = functionTool({
  name: "echo",
  description: "Echoes",
  input: z.object({ text: z.string().describe("what to say"), times: z.number().int().default(1) }),
  readOnly: true,
  execute: ({ text, times }) => text.repeat(times),
});

describe("functionTool", () => {
  it("derives the JSON Schema from zod, without $schema", () => {
    expect(echo.inputSchema).toMatchObject({
      type: "object",
      properties: {
        text: { type: "string", description: "what to say" },
        times: { type: "integer", default: 1 },
      },
      required: ["text"],
    });
    expect(echo.inputSchema.$schema).toBeUndefined();
    expect(echo.readOnly && echo.concurrencySafe).toBe(true);
  });

  it("parses arguments with zod defaults and reports violations by path", () => {
    expect(echo.parse({ text: "a" })).toEqual({ text: "a", times: 1 });
    expect(() => echo.parse({ text: 3 })).toThrow(ToolInputError);
    expect(() => echo.parse({ text: 3 })).toThrow(/text: /);
  });
});

describe("jsonSchemaTool", () => {
  it("validates with Ajv against the raw schema", async () => {
    const tool = await jsonSchemaTool({
      name: "add",
      description: "Adds",
      inputSchema: {
        $schema: "http://json-schema.org/draft-07/schema#",
        type: "object",
        properties: { a: { type: "number" }, b: { type: "number" } },
        required: ["a", "b"],
      },
      execute: ({ a, b }) => (a as number) + (b as number),
    });
    expect(tool.inputSchema.$schema).toBeUndefined();
    expect(tool.parse({ a: 1, b: 2 })).toEqual({ a: 1, b: 2 });
    expect(() => tool.parse({ a: 1 })).toThrow(/must have required property 'b'/);
    expect(() => tool.parse({ a: "x", b: 1 })).toThrow(/^a: must be number/);
  });
});

describe("Toolkit", () => {
  it("rejects a second tool with the same name, clearly", () => {
    const kit = new Toolkit([echo]);
    expect(() => kit.register(echo)).toThrow(ToolNameCollisionError);
    expect(() => kit.register(echo)).toThrow(/"echo" is already registered/);
    expect(() => kit.register({ ...echo, name: "bad name!" })).toThrow(/must be 1-128 letters/);
  });

  it("sends only active groups' schemas to the model and refuses calls to inactive tools", async () => {
    const kit = new Toolkit([echo]);
    kit.createGroup({ name: "browser", description: "browse", notes: "Use the browser for web pages." });
    kit.register({ ...echo, name: "open_page" }, { group: "browser" });
    expect(kit.schemas().map((s) => s.name)).toEqual(["echo"]);
    expect(kit.groupNotes()).toEqual([]);
    kit.activateGroups("browser");
    expect(kit.schemas().map((s) => s.name)).toEqual(["echo", "open_page"]);
    expect(kit.groupNotes()).toEqual(["browser: Use the browser for web pages."]);
    kit.deactivateGroups("browser");

    const model = new ScriptedModel([
      { toolCalls: [{ name: "open_page", input: { text: "x" } }] },
      { text: "ok" },
    ]);
    const agent = new Agent({ name: "a", model, toolkit: kit });
    const reply = await agent.reply(userMsg("go"));
    expect(blocksOf(reply, "tool_result")[0]).toMatchObject({ state: "error" });
    expect(model.calls[0]!.options.tools!.map((t) => t.name)).toEqual(["echo"]);
    expect(() => kit.setGroupActive("nope", true)).toThrow(/unknown tool group "nope"/);
  });

  it("streams a tool's chunks as TOOL_RESULT_TEXT_DELTA and DATA_DELTA events", async () => {
    const progress = functionTool({
      name: "render",
      description: "",
      input: z.object({}),
      readOnly: true,
      async *execute() {
        yield "rendering...";
        yield " done";
        yield {
          type: "data",
          id: "png1",
          source: { type: "base64", mediaType: "image/png", data: "iVBORw0KGgo=" },
        };
      },
    });
    const model = new ScriptedModel([{ toolCalls: [{ name: "render", input: {} }] }, { text: "here" }]);
    const agent = new Agent({ name: "a", model, toolkit: [progress] });
    const events = await collect(agent.replyStream(userMsg("draw")));
    expect(shape(events).filter((t) => t.startsWith("TOOL_RESULT"))).toEqual([
      "TOOL_RESULT_START",
      "TOOL_RESULT_TEXT_DELTA",
      "TOOL_RESULT_DATA_DELTA",
      "TOOL_RESULT_END",
    ]);
    expect(events.filter((e) => e.type === "TOOL_RESULT_TEXT_DELTA")).toHaveLength(2);
    const result = blocksOf(agent.state.context.at(-1)!, "tool_result")[0]!;
    expect(result.output).toEqual([
      { type: "text", id: expect.any(String), text: "rendering... done" },
      { type: "data", id: "png1", source: { type: "base64", mediaType: "image/png", data: "iVBORw0KGgo=" } },
    ]);
  });

  it("sends an object result to the model as JSON", async () => {
    const stats = functionTool({
      name: "stats",
      description: "",
      input: z.object({}),
      readOnly: true,
      execute: () => ({ files: 3 }),
    });
    const model = new ScriptedModel([{ toolCalls: [{ name: "stats", input: {} }] }, { text: "3 files" }]);
    const reply = await new Agent({ name: "a", model, toolkit: [stats] }).reply(userMsg("count"));
    expect(blocksOf(reply, "tool_result")[0]!.output).toBe('{"files":3}');
  });
});
