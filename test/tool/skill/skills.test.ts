import { mkdirSync, mkdtempSync, rmSync, unlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { ToolError, ToolInputError } from "../../../src/tool/index.js";
import { loadSkills, skillsPrompt, skillTool } from "../../../src/tool/skill/index.js";
import { runTool, textOfChunks } from "../helpers.js";

let root: string;

function write(path: string, text: string): string {
  const full = join(root, path);
  mkdirSync(dirname(full), { recursive: true });
  writeFileSync(full, text);
  return full;
}

function skillMd(name: string, description: string, body = `Instructions for ${name}.`): string {
  return `---\nname: ${name}\ndescription: ${description}\n---\n\n${body}\n`;
}

beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), "agentscope-skills-"));
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

describe("loadSkills", () => {
  it("loads every subfolder with a SKILL.md, ignoring other folders and missing directories", async () => {
    write("project/pdf/SKILL.md", skillMd("pdf", "Work with PDF files"));
    write("project/csv/SKILL.md", skillMd("csv", "Clean CSV files"));
    write("project/notes/README.md", "not a skill");
    const skills = await loadSkills([join(root, "project"), join(root, "does-not-exist")]);
    expect(skills.map((skill) => skill.name)).toEqual(["csv", "pdf"]);
    expect(skills[1]).toEqual({
      name: "pdf",
      description: "Work with PDF files",
      dir: join(root, "project/pdf"),
      file: join(root, "project/pdf/SKILL.md"),
      metadata: {},
    });
  });

  it("accepts a directory that is itself a skill, and keeps extra front-matter keys", async () => {
    write("single/SKILL.md", "---\nname: single\ndescription: One skill\nlicense: MIT\n---\nBody\n");
    const [skill] = await loadSkills(join(root, "single"));
    expect(skill).toMatchObject({ name: "single", metadata: { license: "MIT" } });
  });

  it("lets the first directory win when two hold a skill of the same name", async () => {
    write("project/review/SKILL.md", skillMd("review", "Project review rules"));
    write("user/review/SKILL.md", skillMd("review", "User review rules"));
    write("user/extra/SKILL.md", skillMd("extra", "Only in the user folder"));
    const skills = await loadSkills([join(root, "project"), join(root, "user")]);
    expect(skills.map((s) => [s.name, s.description])).toEqual([
      ["review", "Project review rules"],
      ["extra", "Only in the user folder"],
    ]);
  });

  it("rejects one name used twice in the same directory, naming both files", async () => {
    write("dup/a/SKILL.md", skillMd("same", "first"));
    write("dup/b/SKILL.md", skillMd("same", "second"));
    await expect(loadSkills(join(root, "dup"))).rejects.toThrow(
      `${join(root, "dup/b/SKILL.md")}: skill name "same" is also used by ${join(root, "dup/a/SKILL.md")}`,
    );
  });

  it("rejects bad front matter with an error naming the file", async () => {
    const file = write("bad/broken/SKILL.md", "---\nname: broken\ndescription Missing colon\n---\n");
    await expect(loadSkills(join(root, "bad"))).rejects.toThrow(`${file}: line 3: expected \`key: value\``);
  });

  it("rejects a skill without a description, naming the file", async () => {
    const file = write("bad/nodesc/SKILL.md", "---\nname: nodesc\n---\nBody\n");
    await expect(loadSkills(join(root, "bad"))).rejects.toThrow(
      `${file}: the front matter needs \`description:`,
    );
  });
});

describe("skillsPrompt", () => {
  it("lists each skill's name and description and says to call the Skill tool", async () => {
    write("s/pdf/SKILL.md", skillMd("pdf", "Work with PDF files"));
    write("s/csv/SKILL.md", skillMd("csv", "Clean CSV files"));
    const prompt = skillsPrompt(await loadSkills(join(root, "s")));
    expect(prompt).toContain("call the Skill tool");
    expect(prompt).toContain("- csv: Clean CSV files\n- pdf: Work with PDF files");
  });

  it("is empty when there are no skills", () => {
    expect(skillsPrompt([])).toBe("");
  });
});

describe("the Skill tool", () => {
  it("is a read-only tool named Skill that only accepts known skill names", async () => {
    write("s/pdf/SKILL.md", skillMd("pdf", "Work with PDF files"));
    const tool = skillTool(await loadSkills(join(root, "s")));
    expect(tool.name).toBe("Skill");
    expect(tool.readOnly).toBe(true);
    expect(tool.inputSchema).toMatchObject({ properties: { skill: { enum: ["pdf"] } } });
    expect(() => tool.parse({ skill: "excel" })).toThrow(ToolInputError);
  });

  it("returns the instructions, the base directory and the skill's other files as absolute paths", async () => {
    write("s/pdf/SKILL.md", skillMd("pdf", "Work with PDF files", "Run scripts/extract.py on the file."));
    const script = write("s/pdf/scripts/extract.py", "print('hi')\n");
    const reference = write("s/pdf/reference.md", "# Reference\n");
    write("s/pdf/.cache/hidden.txt", "hidden");
    write("s/pdf/node_modules/x/index.js", "ignored");
    const tool = skillTool(await loadSkills(join(root, "s")));
    const text = textOfChunks(await runTool(tool, { skill: "pdf" }));
    expect(text).toContain(`Base directory: ${join(root, "s/pdf")}`);
    expect(text).toContain("Run scripts/extract.py on the file.");
    expect(text).not.toContain("name: pdf");
    expect(text).toContain(`- ${reference}\n- ${script}`);
    expect(text).not.toContain("SKILL.md");
    expect(text).not.toContain("hidden");
    expect(text).not.toContain("node_modules");
  });

  it("reads the instructions on demand, so an edit after loading is seen", async () => {
    const file = write("s/pdf/SKILL.md", skillMd("pdf", "Work with PDF files", "Old steps."));
    const tool = skillTool(await loadSkills(join(root, "s")));
    writeFileSync(file, skillMd("pdf", "Work with PDF files", "New steps."));
    expect(textOfChunks(await runTool(tool, { skill: "pdf" }))).toContain("New steps.");
  });

  it("a skill whose SKILL.md is gone is a ToolError naming the file", async () => {
    const file = write("s/pdf/SKILL.md", skillMd("pdf", "Work with PDF files"));
    const tool = skillTool(await loadSkills(join(root, "s")));
    unlinkSync(file);
    const error = await runTool(tool, { skill: "pdf" }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ToolError);
    expect((error as Error).message).toContain(`skill "pdf" could not be read from ${file}`);
  });
});
