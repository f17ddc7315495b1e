import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import {
  askKey,
  type CallToDecide,
  DecidedCall,
  decideCall,
  decidePermission,
  type PermissionContext,
  type PermissionDecision,
  type PermissionSubject,
  UndecidedInputError,
  unofferedRules,
} from "../../src/permission/index.js";

const root = realpathSync(mkdtempSync(join(tmpdir(), "decided-call-")));
afterAll(() => rmSync(root, { recursive: true, force: true }));

const fileTool: PermissionSubject = {
  name: "Write",
  readOnly: false,
  editsFiles: true,
  pathsOf: (input) => [(input as { path: string }).path],
};

const context = (extra: Partial<PermissionContext> = {}): PermissionContext => ({
  mode: "bypass",
  rules: [],
  workingDirectories: [root],
  ...extra,
});

const request = (input: unknown, extra: Partial<CallToDecide> = {}): CallToDecide => ({
  call: { id: "call_1", name: "Write" },
  subject: fileTool,
  input,
  context: context(),
  decide: (value, ctx) => decidePermission(fileTool, value, ctx),
  ...extra,
});

async function decided(input: unknown): Promise<DecidedCall> {
  const verdict = await decideCall(request(input));
  if (verdict.behavior !== "allow") throw new Error(`not allowed: ${verdict.decision.reason}`);
  return verdict.decided;
}

describe("DecidedCall: leave to run one call with exactly one input", () => {
  it("cannot be made except by the gate (a type error, and refused at run time)", () => {
    const Ctor = DecidedCall as unknown as new (...args: unknown[]) => DecidedCall;
    expect(() => new Ctor("call_1", "Write", "{}", { behavior: "allow", reason: "" }, "engine")).toThrow(
      /minted only by decideCall/,
    );
    const forged = () =>
      // @ts-expect-error the constructor is private: a path that forgets to ask does not compile
      new DecidedCall("call_1", "Write", "{}", { behavior: "allow", reason: "" }, "engine");
    expect(forged).toThrow(/minted only by decideCall/);
  });

  it("runs the decided input and refuses any other one without calling the tool", async () => {
    const call = await decided({ path: "a.txt" });
    const runs: unknown[] = [];
    expect(call.run({ id: "call_1", name: "Write" }, { path: "a.txt" }, (input) => runs.push(input))).toBe(1);
    expect(() =>
      call.run({ id: "call_1", name: "Write" }, { path: "b.txt" }, (input) => runs.push(input)),
    ).toThrow(UndecidedInputError);
    expect(() =>
      call.run({ id: "call_2", name: "Write" }, { path: "a.txt" }, (input) => runs.push(input)),
    ).toThrow(/not Write call "call_2"/);
    expect(() =>
      call.run({ id: "call_1", name: "Bash" }, { path: "a.txt" }, (input) => runs.push(input)),
    ).toThrow(/not Bash call/);
    expect(runs).toEqual([{ path: "a.txt" }]);
  });

  it("is bound to the content, not the object: an input changed in place no longer matches", async () => {
    const input = { path: "a.txt" };
    const call = await decided(input);
    input.path = "/etc/passwd";
    expect(call.matches(input)).toBe(false);
    expect(() => call.run({ id: "call_1", name: "Write" }, input, () => "ran")).toThrow(UndecidedInputError);
  });

  it("refuses to bind arguments that are not JSON", async () => {
    await expect(decideCall(request({ big: 1n }))).rejects.toThrow(UndecidedInputError);
  });

  it("treats a decider answer other than allow, deny or ask as a deny", async () => {
    const verdict = await decideCall(
      request(
        { path: "a.txt" },
        { decide: async () => ({ behavior: "yes" }) as unknown as PermissionDecision },
      ),
    );
    expect(verdict).toMatchObject({
      behavior: "deny",
      decision: { reason: expect.stringContaining('"yes"') },
    });
  });
});

describe("decideCall weighs a person's approval against the ask the input needs now", () => {
  const ask = (reason: string): PermissionDecision => ({
    behavior: "ask",
    reason,
    suggestedRules: ["Write(x)"],
  });
  const withDecision = (decision: PermissionDecision, approval: CallToDecide["approval"]) =>
    decideCall(
      request({ path: "a.txt" }, { decide: async () => decision, ...(approval ? { approval } : {}) }),
    );

  it("an ask without approval asks; an unchanged approval settles any ask", async () => {
    expect((await withDecision(ask("r"), undefined)).behavior).toBe("ask");
    const verdict = await withDecision(ask("r"), { edited: false });
    expect(verdict.behavior).toBe("allow");
    if (verdict.behavior === "allow") expect(verdict.decided.approvedBy).toBe("person");
  });

  it("an edited approval settles only the very ask the person answered", async () => {
    expect((await withDecision(ask("r"), { edited: true, answered: askKey(ask("r")) })).behavior).toBe(
      "allow",
    );
    expect((await withDecision(ask("other"), { edited: true, answered: askKey(ask("r")) })).behavior).toBe(
      "ask",
    );
    const safety = { ...ask("r"), safety: true, suggestedRules: undefined };
    expect((await withDecision(safety, { edited: true, answered: askKey(ask("r")) })).behavior).toBe("ask");
    expect((await withDecision(ask("r"), { edited: true, answered: "" })).behavior).toBe("ask");
  });

  it("no approval lifts a deny", async () => {
    const deny: PermissionDecision = { behavior: "deny", reason: "denied by the rule Write" };
    expect((await withDecision(deny, { edited: false })).behavior).toBe("deny");
    expect((await withDecision(deny, { edited: true, answered: "" })).behavior).toBe("deny");
  });
});

describe("the session boundary is part of the engine's check, in every mode", () => {
  const inside = join(root, "ws");
  const other = join(root, "other");
  mkdirSync(inside, { recursive: true });
  mkdirSync(other, { recursive: true });
  symlinkSync(other, join(inside, "link"));
  const bounded = (extra: Partial<PermissionContext> = {}) =>
    context({ workingDirectories: [inside], boundary: { directory: inside }, ...extra });

  it.each(["bypass", "default", "accept_edits", "dont_ask"] as const)(
    "denies a path outside it in %s mode",
    async (mode) => {
      for (const path of [join(other, "x"), "../other/x", "link/x", "/etc/passwd"]) {
        const decision = await decidePermission(fileTool, { path }, bounded({ mode }));
        expect(decision, path).toMatchObject({
          behavior: "deny",
          reason: expect.stringContaining("outside this session's workspace"),
        });
      }
      const insideDecision = await decidePermission(fileTool, { path: "notes.txt" }, bounded({ mode }));
      expect(insideDecision.reason).not.toContain("outside this session's workspace");
    },
  );

  it("no decider, middleware or approval can lift it", async () => {
    const verdict = await decideCall(
      request(
        { path: join(other, "x") },
        {
          context: bounded(),
          decide: async () => ({ behavior: "allow", reason: "a permissive custom decider" }),
          approval: { edited: false },
        },
      ),
    );
    expect(verdict.behavior).toBe("deny");
  });

  it("fails closed: paths that cannot be read, or a relative boundary, deny", async () => {
    const broken: PermissionSubject = {
      ...fileTool,
      pathsOf: () => {
        throw new Error("boom");
      },
    };
    expect(await decidePermission(broken, {}, bounded())).toMatchObject({ behavior: "deny" });
    expect(
      await decidePermission(fileTool, { path: "a" }, bounded({ boundary: { directory: "ws" } })),
    ).toMatchObject({
      behavior: "deny",
      reason: expect.stringContaining("not an absolute path"),
    });
  });

  it("leaves a tool it names as sandboxed to its sandbox", async () => {
    const ctx = bounded({ boundary: { directory: inside, sandboxedTools: ["Write"] } });
    expect((await decidePermission(fileTool, { path: join(other, "x") }, ctx)).behavior).toBe("allow");
  });
});

describe("unofferedRules: an answer remembers only what the ask offered", () => {
  it("accepts offered rules (normalised), refuses others with a clear reason", () => {
    const offered: PermissionDecision = {
      behavior: "ask",
      reason: "",
      suggestedRules: ["Bash(git status:*)"],
    };
    expect(unofferedRules(["Bash( git status:* )"], offered)).toBeUndefined();
    expect(unofferedRules([], undefined)).toBeUndefined();
    expect(unofferedRules(["Bash"], offered)).toMatch(/"Bash", which the confirmation did not offer/);
    expect(unofferedRules(["Bash"], { behavior: "ask", reason: "", safety: true })).toMatch(/safety ask/);
    expect(unofferedRules(["Bash"], { behavior: "allow", reason: "" })).toMatch(/offered no rule/);
  });
});
