import { readdirSync, readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { BUILTIN_TOOL_NAMES, builtinTools } from "../../../src/tool/builtin/index.js";
import { describeBuiltinContract } from "./builtin-contract.js";

const here = new URL("./", import.meta.url);

describe("every built-in tool", () => {
  it("is in BUILTIN_TOOL_NAMES, in the order builtinTools returns them", () => {
    expect(builtinTools().map((tool) => tool.name)).toEqual([...BUILTIN_TOOL_NAMES]);
  });

  it("runs the built-in contract once, from a test of test/tool/builtin (describeBuiltinContract)", () => {
    const called = readdirSync(here)
      .filter((file) => file.endsWith(".test.ts"))
      .flatMap((file) => [
        ...readFileSync(new URL(file, here), "utf8").matchAll(/describeBuiltinContract\(\s*"(\w+)"/g),
      ])
      .map(([, name]) => name);
    expect([...called].sort()).toEqual([...BUILTIN_TOOL_NAMES].sort());
  });
  // docs/permissions.md lists every one: test/build/builtin-tools-docs.test.ts.
});

describeBuiltinContract("Bash", {
  flags: [false, false, false],
  inside: { command: "cat a.txt" },
  outside: { command: "cat /etc/hostname" },
  secret: { command: "cat .env" },
  fileView: false,
});

describeBuiltinContract("Read", {
  flags: [true, true, false],
  inside: { path: "a.txt" },
  outside: { path: "/etc/hostname" },
  secret: { path: ".env" },
});

describeBuiltinContract("Write", {
  flags: [false, false, true],
  inside: { path: "a.txt", content: "x" },
  outside: { path: "/etc/agentscope-never.txt", content: "x" },
  secret: { path: ".env", content: "x" },
});

describeBuiltinContract("Edit", {
  flags: [false, false, true],
  inside: { path: "a.txt", oldString: "hello", newString: "bye" },
  outside: { path: "/etc/hostname", oldString: "a", newString: "b" },
  secret: { path: ".env", oldString: "a", newString: "b" },
});

// Glob returns names, never contents: listing `.env` is not reading it (a workspace's view hides it).
describeBuiltinContract("Glob", {
  flags: [true, true, false],
  inside: { pattern: "*.txt" },
  outside: { pattern: "/etc/*" },
  secret: null,
});

describeBuiltinContract("Grep", {
  flags: [true, true, false],
  inside: { pattern: "hello" },
  outside: { pattern: "x", path: "/etc" },
  secret: { pattern: "x", path: ".env" },
});
