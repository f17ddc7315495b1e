import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  decidePermission,
  type PermissionMode,
  type PermissionSubject,
  type ToolPermissionResult,
} from "../../src/permission/index.js";
import { context } from "./fixtures.js";

const ownResult = fc.constantFrom<ToolPermissionResult | undefined>(
  undefined,
  { behavior: "passthrough" },
  { behavior: "allow", reason: "tool allows" },
  { behavior: "deny", reason: "tool denies" },
  { behavior: "ask", reason: "tool asks" },
  { behavior: "ask", reason: "tool safety ask", safety: true },
);
const rule = fc
  .tuple(fc.constantFrom("allow", "deny", "ask"), fc.constantFrom("Probe", "Probe(a)", "Probe(b)", "Other"))
  .map(([behavior, text]) => `${behavior}:${text}`);

const arbitraryCall = fc.record({
  readOnly: fc.boolean(),
  own: ownResult,
  rules: fc.array(rule, { maxLength: 4 }),
  value: fc.constantFrom("a", "b", "ab", "c"),
});

function probe(call: { readOnly: boolean; own: ToolPermissionResult | undefined }): PermissionSubject {
  return {
    name: "Probe",
    readOnly: call.readOnly,
    checkPermissions: call.own ? () => call.own! : undefined,
    matchRule: (content, input) => String((input as { value: string }).value).startsWith(content),
  };
}

type Call = typeof arbitraryCall extends fc.Arbitrary<infer C> ? C : never;

async function decide(mode: PermissionMode, call: Call) {
  return decidePermission(probe(call), { value: call.value }, context(mode, call.rules));
}

describe("permission properties", () => {
  it("bypass never asks", async () => {
    await fc.assert(
      fc.asyncProperty(arbitraryCall, async (call) => {
        expect((await decide("bypass", call)).behavior).not.toBe("ask");
      }),
    );
  });

  it("dont_ask never asks", async () => {
    await fc.assert(
      fc.asyncProperty(arbitraryCall, async (call) => {
        expect((await decide("dont_ask", call)).behavior).not.toBe("ask");
      }),
    );
  });

  it("explore never allows a call that is not read-only", async () => {
    await fc.assert(
      fc.asyncProperty(arbitraryCall, async (call) => {
        const decision = await decide("explore", call);
        if (!call.readOnly) expect(decision.behavior).not.toBe("allow");
      }),
    );
  });

  it("a matching deny rule always denies, in every mode", async () => {
    const modes = fc.constantFrom<PermissionMode>("default", "accept_edits", "explore", "bypass", "dont_ask");
    await fc.assert(
      fc.asyncProperty(arbitraryCall, modes, async (call, mode) => {
        const decision = await decide(mode, { ...call, rules: [...call.rules, "deny:Probe"] });
        expect(decision.behavior).toBe("deny");
      }),
    );
  });

  it("a safety ask from the tool is never allowed by a rule outside bypass", async () => {
    const modes = fc.constantFrom<PermissionMode>("default", "accept_edits", "dont_ask");
    await fc.assert(
      fc.asyncProperty(arbitraryCall, modes, async (call, mode) => {
        const own: ToolPermissionResult = { behavior: "ask", reason: "danger", safety: true };
        const decision = await decide(mode, {
          ...call,
          readOnly: false,
          own,
          rules: [...call.rules, "allow:Probe"],
        });
        expect(decision.behavior).not.toBe("allow");
      }),
    );
  });
});
