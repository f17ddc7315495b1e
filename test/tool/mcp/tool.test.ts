import { describe, expect, it } from "vitest";
import { type McpToolCaller, mcpTools } from "../../../src/tool/mcp/index.js";
import { runTool, textOfChunks } from "../helpers.js";

/** Records calls and answers with a fixed text; the real servers are covered in the other files. */
function caller(): McpToolCaller & { calls: unknown[] } {
  const calls: unknown[] = [];
  return {
    name: "fake",
    calls,
    async callTool(tool, args) {
      calls.push({ tool, args });
      return { content: [{ type: "text", text: "ok" }] };
    },
  };
}

const objectSchema = { type: "object" as const, properties: {} };

describe("mcpTools", () => {
  it("is read-only only for readOnlyHint without destructiveHint", async () => {
    const tools = await mcpTools(caller(), [
      { name: "plain", inputSchema: objectSchema },
      { name: "reader", inputSchema: objectSchema, annotations: { readOnlyHint: true } },
      { name: "odd", inputSchema: objectSchema, annotations: { readOnlyHint: true, destructiveHint: true } },
      {
        name: "writer",
        inputSchema: objectSchema,
        annotations: { readOnlyHint: false, destructiveHint: false },
      },
    ]);
    expect(tools.map((tool) => [tool.mcp.tool, tool.readOnly, tool.concurrencySafe])).toEqual([
      ["plain", false, false],
      ["reader", true, true],
      ["odd", false, false],
      ["writer", false, false],
    ]);
  });

  it("uses the description, else the title, else a sentence naming the server", async () => {
    const tools = await mcpTools(caller(), [
      { name: "a", description: "Does A", title: "A", inputSchema: objectSchema },
      { name: "b", title: "Tool B", inputSchema: objectSchema },
      { name: "c", inputSchema: objectSchema },
    ]);
    expect(tools.map((tool) => tool.description)).toEqual([
      "Does A",
      "Tool B",
      'Tool "c" of MCP server "fake"',
    ]);
  });

  it("keeps a schema Ajv cannot compile for the model and lets the server validate", async () => {
    const odd = { type: "object" as const, properties: { a: { type: "not-a-type" } } };
    const fake = caller();
    const [tool] = await mcpTools(fake, [{ name: "odd", inputSchema: odd }]);
    expect(tool?.inputSchema).toEqual(odd);
    expect(textOfChunks(await runTool(tool as never, { a: 1 }))).toBe("ok");
    expect(fake.calls).toEqual([{ tool: "odd", args: { a: 1 } }]);
  });

  it("rejects two remote names that sanitise to the same tool name", async () => {
    await expect(
      mcpTools(caller(), [
        { name: "read.file", inputSchema: objectSchema },
        { name: "read_file", inputSchema: objectSchema },
      ]),
    ).rejects.toThrow(
      'MCP server "fake" has tools "read.file" and "read_file" that both become "mcp__fake__read_file"',
    );
  });
});
