import { describe, expect, it } from "vitest";
import {
  decidePermission,
  type PermissionMode,
  type ToolPermissionResult,
} from "../../src/permission/index.js";
import { context, MODES, subject } from "./fixtures.js";

type Outcome = "allow" | "deny" | "ask";

interface Step {
  step: string;
  readOnly?: boolean;
  own?: ToolPermissionResult;
  rules?: string[];
  expect: Record<PermissionMode, Outcome>;
  /** The decision must name this rule (string form) in every mode where `rule` is set. */
  rule?: Partial<Record<PermissionMode, string>>;
  safety?: Partial<Record<PermissionMode, boolean>>;
}

const allModes = (outcome: Outcome): Record<PermissionMode, Outcome> => ({
  default: outcome,
  accept_edits: outcome,
  explore: outcome,
  bypass: outcome,
  dont_ask: outcome,
  plan: outcome,
});

const safetyAsk: ToolPermissionResult = { behavior: "ask", reason: "rm -rf is dangerous", safety: true };

const steps: Step[] = [
  {
    step: "1. a deny rule beats everything, even a read-only call and an allow rule",
    readOnly: true,
    rules: ["deny:Probe(go)", "allow:Probe(go)", "ask:Probe(go)"],
    expect: allModes("deny"),
    rule: {
      default: "Probe(go)",
      explore: "Probe(go)",
      bypass: "Probe(go)",
      dont_ask: "Probe(go)",
      plan: "Probe(go)",
    },
  },
  {
    step: "2. an ask rule beats the read-only fast path and allow rules (bypass ignores it, dont_ask denies)",
    readOnly: true,
    rules: ["ask:Probe(go)", "allow:Probe"],
    expect: {
      default: "ask",
      accept_edits: "ask",
      explore: "ask",
      bypass: "allow",
      dont_ask: "deny",
      plan: "ask",
    },
    rule: { default: "Probe(go)", explore: "Probe(go)", dont_ask: "Probe(go)", plan: "Probe(go)" },
  },
  {
    step: "3. a read-only call is allowed without consulting anything else",
    readOnly: true,
    own: { behavior: "deny", reason: "never reached" },
    expect: allModes("allow"),
  },
  {
    step: "4a. the tool's own deny decides (explore denies without asking the tool)",
    own: { behavior: "deny", reason: "the tool refuses" },
    rules: ["allow:Probe"],
    expect: allModes("deny"),
  },
  {
    step: "4b. the tool's own allow decides (explore still denies)",
    own: { behavior: "allow", reason: "the tool vouches" },
    expect: { ...allModes("allow"), explore: "deny", plan: "deny" },
  },
  {
    step: "4c. a safety ask is immune to allow rules; bypass ignores it; dont_ask denies it",
    own: safetyAsk,
    rules: ["allow:Probe"],
    expect: {
      default: "ask",
      accept_edits: "ask",
      explore: "deny",
      bypass: "allow",
      dont_ask: "deny",
      plan: "deny",
    },
    safety: { default: true, accept_edits: true, dont_ask: true },
  },
  {
    step: "4d. a plain ask from the tool yields to an allow rule",
    own: { behavior: "ask", reason: "the tool would like a person" },
    rules: ["allow:Probe(go)"],
    expect: { ...allModes("allow"), explore: "deny", plan: "deny" },
    rule: { default: "Probe(go)", accept_edits: "Probe(go)", bypass: "Probe(go)", dont_ask: "Probe(go)" },
  },
  {
    step: "5. an allow rule allows what would ask (never in explore)",
    rules: ["allow:Probe(go)"],
    expect: { ...allModes("allow"), explore: "deny", plan: "deny" },
  },
  {
    step: "6. the mode's fallback",
    own: { behavior: "passthrough" },
    expect: {
      default: "ask",
      accept_edits: "ask",
      explore: "deny",
      bypass: "allow",
      dont_ask: "deny",
      plan: "deny",
    },
  },
];

describe("decidePermission follows deny → ask → read-only → tool check → allow → mode fallback", () => {
  for (const step of steps) {
    for (const mode of MODES) {
      it(`${step.step} [${mode} → ${step.expect[mode]}]`, async () => {
        const calls = { own: 0 };
        const probe = subject({ readOnly: step.readOnly, own: step.own, calls });
        const decision = await decidePermission(probe, { value: "go now" }, context(mode, step.rules));
        expect(decision.behavior).toBe(step.expect[mode]);
        expect(decision.reason.length).toBeGreaterThan(5);
        const rule = step.rule?.[mode];
        if (rule)
          expect(decision.rule && `${decision.rule.toolName}(${decision.rule.ruleContent})`).toBe(rule);
        expect(decision.safety === true).toBe(step.safety?.[mode] === true);
        if (decision.behavior === "ask" && !decision.safety)
          expect(decision.suggestedRules).toContain("Probe(suggested)");
        if (mode === "explore" || mode === "plan") expect(calls.own).toBe(0);
      });
    }
  }

  it("keeps the tool's reason when its plain ask reaches the fallback", async () => {
    const probe = subject({ own: { behavior: "ask", reason: "the tool would like a person" } });
    const decision = await decidePermission(probe, { value: "x" }, context("default"));
    expect(decision).toMatchObject({ behavior: "ask", reason: "the tool would like a person" });
  });

  it("suggests no rules for a safety ask, since no rule could silence it", async () => {
    const decision = await decidePermission(subject({ own: safetyAsk }), { value: "x" }, context("default"));
    expect(decision.suggestedRules).toBeUndefined();
  });

  it("keeps suggestions when dont_ask turns an ask into a deny", async () => {
    const decision = await decidePermission(subject({}), { value: "x" }, context("dont_ask"));
    expect(decision).toMatchObject({ behavior: "deny", suggestedRules: ["Probe(suggested)"] });
    expect(decision.reason).toMatch(/dont_ask/);
  });

  it("turns a throwing permission check into an ask that names the failure", async () => {
    const probe = {
      ...subject({}),
      checkPermissions: () => {
        throw new Error("boom");
      },
    };
    const decision = await decidePermission(probe, { value: "x" }, context("default"));
    expect(decision.behavior).toBe("ask");
    expect(decision.reason).toMatch(/boom/);
  });

  it("applies a rule for an MCP server to every tool of that server only", async () => {
    const ctx = context("default", ["allow:mcp__github"]);
    const issue = await decidePermission(subject({ name: "mcp__github__create_issue" }), {}, ctx);
    const other = await decidePermission(subject({ name: "mcp__gitlab__create_issue" }), {}, ctx);
    const prefix = await decidePermission(subject({ name: "mcp__github2__x" }), {}, ctx);
    expect([issue.behavior, other.behavior, prefix.behavior]).toEqual(["allow", "ask", "ask"]);
  });

  it("a rule with content does not match a tool that cannot match content", async () => {
    const probe = { ...subject({}), matchRule: undefined };
    const decision = await decidePermission(probe, { value: "go" }, context("default", ["deny:Probe(go)"]));
    expect(decision.behavior).toBe("ask");
  });
});
