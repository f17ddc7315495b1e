import { describe, expect, it } from "vitest";
import {
  addRules,
  formatRule,
  PermissionRuleError,
  parseRule,
  ruleFromString,
  ruleNamesTool,
} from "../../src/permission/index.js";
import { context } from "./fixtures.js";

describe("permission rules in string form", () => {
  it.each([
    ["Bash(git status:*)", { toolName: "Bash", ruleContent: "git status:*" }],
    ["Read(src/**)", { toolName: "Read", ruleContent: "src/**" }],
    ["Write(/tmp/**)", { toolName: "Write", ruleContent: "/tmp/**" }],
    ["mcp__github", { toolName: "mcp__github" }],
    ["Bash(echo (a) b)", { toolName: "Bash", ruleContent: "echo (a) b" }],
    ["  Read  ", { toolName: "Read" }],
    ["Edit(*)", { toolName: "Edit" }],
    ["Edit()", { toolName: "Edit" }],
  ])("parses %s", (text, expected) => {
    const rule = parseRule(text, "allow", "user");
    expect(rule).toEqual({ ...expected, behavior: "allow", source: "user" });
  });

  it.each(["Bash(git status:*)", "Read(src/**)", "mcp__github", "Bash(echo (a) b)"])(
    "formats %s back to the same string",
    (text) => expect(formatRule(parseRule(text, "deny", "project"))).toBe(text),
  );

  it.each([
    ["", /empty/],
    ["Bash(git status", /not closed/],
    ["Bash)", /without a "\("/],
    ["(ls)", /tool name .* missing/],
    ["Ba sh(ls)", /"Ba sh" may only hold/],
    ["Bash(ls) extra", /not closed/],
  ])("rejects %j and names the rule", (text, problem) => {
    let error: unknown;
    try {
      parseRule(text, "allow", "user");
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(PermissionRuleError);
    expect((error as Error).message).toContain(JSON.stringify(text));
    expect((error as Error).message).toMatch(problem);
  });

  it("ruleFromString makes an allow rule from a confirmation by default", () => {
    expect(ruleFromString("Bash(npm test:*)")).toEqual({
      toolName: "Bash",
      ruleContent: "npm test:*",
      behavior: "allow",
      source: "confirmation",
    });
  });

  it("names tools exactly, by MCP server, or by a trailing *", () => {
    expect(ruleNamesTool("Bash", "Bash")).toBe(true);
    expect(ruleNamesTool("Bash", "BashX")).toBe(false);
    expect(ruleNamesTool("mcp__github", "mcp__github__list")).toBe(true);
    expect(ruleNamesTool("mcp__github", "mcp__githubx__list")).toBe(false);
    expect(ruleNamesTool("mcp__github__list", "mcp__github__list")).toBe(true);
    expect(ruleNamesTool("mcp__github__list", "mcp__github__listx")).toBe(false);
    expect(ruleNamesTool("mcp__*", "mcp__a__b")).toBe(true);
  });
});

describe("addRules", () => {
  it("returns a new context with the rules added once, leaving the old one unchanged", () => {
    const before = context("default", ["deny:Bash(rm:*)"]);
    const after = addRules(before, [
      "Bash(git status:*)",
      "Bash(git status:*)",
      parseRule("Read", "ask", "user"),
    ]);
    expect(before.rules).toHaveLength(1);
    expect(after).not.toBe(before);
    expect(after.rules.map((rule) => `${rule.behavior} ${formatRule(rule)} ${rule.source}`)).toEqual([
      "deny Bash(rm:*) user",
      "allow Bash(git status:*) confirmation",
      "ask Read user",
    ]);
    expect(addRules(after, ["Bash(git status:*)"]).rules).toHaveLength(3);
  });

  it("throws a rule error for a bad string and adds nothing", () => {
    const before = context("default");
    expect(() => addRules(before, ["Bash("])).toThrow(/"Bash\("/);
    expect(before.rules).toEqual([]);
  });
});
