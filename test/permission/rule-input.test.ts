import { describe, expect, it } from "vitest";
import { Agent } from "../../src/agent/index.js";
import { buildAgents } from "../../src/app/server/config/build-agents.js";
import { parseServiceConfig } from "../../src/app/server/config/service-config.js";
import { PermissionRuleError, permissionContextFrom, ruleFromInput } from "../../src/permission/index.js";
import { parseAgentState } from "../../src/state/index.js";
import { ScriptedModel } from "../../src/testing/index.js";

describe("rules as strings, checked at the boundary", () => {
  it("reads strings (allow by default, or prefixed) and objects into plain rules", () => {
    const context = permissionContextFrom({
      mode: "accept_edits",
      rules: [
        "Bash(git status:*)",
        "deny:Bash(rm:*)",
        "ask: Write",
        { toolName: "Read", ruleContent: "src/**" },
        { rule: "mcp__github", behavior: "deny" },
      ],
      deny: ["Bash(curl:*)"],
    });
    expect(context).toEqual({
      mode: "accept_edits",
      rules: [
        { toolName: "Bash", ruleContent: "git status:*", behavior: "allow", source: "user" },
        { toolName: "Bash", ruleContent: "rm:*", behavior: "deny", source: "user" },
        { toolName: "Write", behavior: "ask", source: "user" },
        { toolName: "Read", ruleContent: "src/**", behavior: "allow", source: "user" },
        { toolName: "mcp__github", behavior: "deny", source: "user" },
        { toolName: "Bash", ruleContent: "curl:*", behavior: "deny", source: "user" },
      ],
    });
  });

  it.each([
    ["Bash(git status", /"Bash\(git status" at permission\.rules\[0\]: the "\(" is not closed/],
    ["", /at permission\.rules\[0\]: it is empty/],
    ["Ba sh(x)", /tool name "Ba sh"/],
    [{ toolName: "Bash", behavior: "maybe" }, /behavior must be one of allow, deny, ask/],
    [{ toolName: 42 }, /toolName must be a string/],
    [7, /a rule is a string/],
  ] as const)("a bad rule %j throws an error naming it", (rule, message) => {
    expect(() => permissionContextFrom({ rules: [rule as never] })).toThrow(PermissionRuleError);
    expect(() => permissionContextFrom({ rules: [rule as never] })).toThrow(message);
  });

  it("names the field of other mistakes", () => {
    expect(() => permissionContextFrom({ mode: "yolo" as never })).toThrow(/permission\.mode "yolo"/);
    expect(() => permissionContextFrom({ deny: ["Bash("] })).toThrow(/at permission\.deny\[0\]/);
    expect(() => ruleFromInput({ toolName: "Bash", source: "nowhere" as never })).toThrow(/source must be/);
  });

  it("new Agent parses string rules once; the stored state passes parseAgentState", () => {
    const agent = new Agent({
      name: "a",
      model: new ScriptedModel([]),
      permission: { rules: ["Bash(git status:*)", "deny:Bash(rm:*)"], workingDirectories: ["/tmp"] },
    });
    const state = parseAgentState(JSON.parse(JSON.stringify(agent.state)));
    expect(state.permission.rules).toEqual([
      { toolName: "Bash", ruleContent: "git status:*", behavior: "allow", source: "user" },
      { toolName: "Bash", ruleContent: "rm:*", behavior: "deny", source: "user" },
    ]);
    expect(agent.createState("s2").permission.rules).toHaveLength(2);
  });

  it("new Agent throws on a bad rule, naming it", () => {
    expect(
      () => new Agent({ name: "a", model: new ScriptedModel([]), permission: { rules: ["Bash(rm:*"] } }),
    ).toThrow(/invalid permission rule "Bash\(rm:\*" at permission\.rules\[0\]/);
  });

  it("the service config accepts rules as strings and objects, and names a bad one", async () => {
    const config = (rules: unknown[]) =>
      parseServiceConfig({
        agents: [{ name: "coder", model: "ollama:llama3.2", permission: { rules, deny: ["Bash(sudo:*)"] } }],
      });
    const parsed = config([
      "Bash(git status:*)",
      { toolName: "Bash", ruleContent: "rm:*", behavior: "deny" },
    ]);
    const [built] = await buildAgents(parsed.agents);
    expect(built?.permission?.rules).toEqual([
      { toolName: "Bash", ruleContent: "git status:*", behavior: "allow", source: "config" },
      { toolName: "Bash", ruleContent: "rm:*", behavior: "deny", source: "config" },
      { toolName: "Bash", ruleContent: "sudo:*", behavior: "deny", source: "config" },
    ]);
    await expect(buildAgents(config(["Bash(("]).agents)).rejects.toThrow(
      /agents "coder": invalid permission rule "Bash\(\(" at permission\.rules\[0\]/,
    );
  });
});
