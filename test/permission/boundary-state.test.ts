import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { emptyAgentState, parseAgentState } from "../../src/state/index.js";

const fixture = readFileSync(new URL("../state/fixtures/agent-state-v1.json", import.meta.url), "utf8");

describe("PermissionContext.boundary in the stored agent state", () => {
  it("a state saved before boundaries existed loads without one", () => {
    const state = parseAgentState(fixture);
    expect(state.permission.boundary).toBeUndefined();
  });

  it("a boundary round-trips through the stored form", () => {
    const state = emptyAgentState("s1", {
      workingDirectories: ["/srv/ws/a"],
      boundary: { directory: "/srv/ws/a", sandboxedTools: ["Bash"] },
    });
    expect(parseAgentState(JSON.stringify(state)).permission.boundary).toEqual({
      directory: "/srv/ws/a",
      sandboxedTools: ["Bash"],
    });
  });

  it.each([
    [{ directory: "ws" }, /absolute/],
    [{ directory: "" }, /boundary/],
    [{ directory: "/ok", sandboxedTools: [""] }, /sandboxedTools/],
    ["/srv", /boundary/],
  ])("a bad boundary %j is refused, naming the field", (boundary, message) => {
    const state = { ...emptyAgentState("s1"), permission: { ...emptyAgentState("s1").permission, boundary } };
    expect(() => parseAgentState(JSON.stringify(state))).toThrow(message);
  });
});
