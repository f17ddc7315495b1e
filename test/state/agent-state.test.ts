import { readdirSync, readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { ValidationError } from "../../src/index.js";
import { AGENT_STATE_VERSION, parseAgentState } from "../../src/state/index.js";

const fixtures = new URL("./fixtures/", import.meta.url);
const files = readdirSync(fixtures).filter((name) => /^agent-state-v\d+\.json$/.test(name));
const read = (name: string) => JSON.parse(readFileSync(new URL(name, fixtures), "utf8"));
/** A fixture as loose JSON, so a test can break any field of it. */
type Fixture = ReturnType<typeof read>;

describe("stored AgentState versions", () => {
  it("keeps a fixture of every schema version up to the current one", () => {
    const versions = files.map((name) => Number(/v(\d+)/.exec(name)![1])).sort((a, b) => a - b);
    expect(versions).toEqual(Array.from({ length: AGENT_STATE_VERSION }, (_, i) => i + 1));
  });

  it.each(files)("loads %s as a current AgentState", (name) => {
    const fixture = read(name);
    const state = parseAgentState(JSON.stringify(fixture));
    expect(state.schemaVersion).toBe(AGENT_STATE_VERSION);
    expect(state.sessionId).toBe(fixture.sessionId);
    expect(state.context.length).toBe(fixture.context.length);
    if (fixture.schemaVersion === AGENT_STATE_VERSION) expect(state).toEqual(fixture);
  });

  it.each([
    ["a role no message may have", (s: Fixture) => (s.context[1].role = "robot"), "context[1].role"],
    [
      "an unknown block type",
      (s: Fixture) => (s.context[0].content[1].type = "video"),
      "context[0].content[1].type",
    ],
    [
      "a tool_call in a user message",
      (s: Fixture) =>
        s.context[0].content.push({ type: "tool_call", id: "c", name: "x", input: "{}", state: "pending" }),
      "context[0].content[3].type",
    ],
    ["a negative iteration", (s: Fixture) => (s.replyContext.iteration = -1), "replyContext.iteration"],
    [
      "an unknown structured-output mode",
      (s: Fixture) => (s.replyContext.structuredOutputMode = "eval"),
      "replyContext.structuredOutputMode",
    ],
    [
      "a tool call claiming to be run by anyone but the provider",
      (s: Fixture) => (s.context[1].content[4].executedBy = "user"),
      "context[1].content[4].executedBy",
    ],
    ["a missing permission mode", (s: Fixture) => delete s.permission.mode, "permission.mode"],
    [
      "a schema version from the future",
      (s: Fixture) => (s.schemaVersion = AGENT_STATE_VERSION + 1),
      "schemaVersion",
    ],
  ])("names the bad field of a corrupt state: %s", (_label, corrupt, path) => {
    const state = read(`agent-state-v${AGENT_STATE_VERSION}.json`);
    corrupt(state);
    let error: unknown;
    try {
      parseAgentState(state);
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(ValidationError);
    expect((error as ValidationError).path).toBe(path);
    expect((error as Error).message).toContain(path);
  });

  it("reports a state that is not JSON", () => {
    expect(() => parseAgentState("{not json")).toThrow(/invalid AgentState: \(root\): not JSON/);
  });
});
