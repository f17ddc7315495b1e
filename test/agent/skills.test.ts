import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { Agent } from "../../src/agent/index.js";
import { blocksOf, textOf, userMsg } from "../../src/message/index.js";
import { ScriptedModel } from "../../src/testing/index.js";
import { loadSkills } from "../../src/tool/index.js";

describe("an agent with skills", () => {
  it("lists them in the system prompt and loads one on demand with the Skill tool", async () => {
    const dir = mkdtempSync(join(tmpdir(), "agentscope-skills-"));
    mkdirSync(join(dir, "release-notes"));
    writeFileSync(
      join(dir, "release-notes", "SKILL.md"),
      "---\nname: release-notes\ndescription: Write release notes from a changelog\n---\nGroup changes by kind; one line each.\n",
    );
    const skills = await loadSkills([dir]);
    const model = new ScriptedModel([
      { toolCalls: [{ name: "Skill", input: { skill: "release-notes" } }] },
      { text: "ok" },
    ]);
    const agent = new Agent({ name: "a", systemPrompt: "You write.", model, skills });
    const reply = await agent.reply(userMsg("notes please"));
    const system = textOf(model.calls[0]!.messages[0]!);
    expect(system.startsWith("You write.")).toBe(true);
    expect(system).toContain("release-notes");
    expect(system).toContain("Write release notes from a changelog");
    expect(blocksOf(reply, "tool_result")[0]!.output).toContain("Group changes by kind");
  });
});
