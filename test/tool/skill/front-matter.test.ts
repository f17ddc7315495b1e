import { describe, expect, it } from "vitest";
import { FrontMatterError, parseFrontMatter } from "../../../src/tool/skill/index.js";

const parse = (text: string) => parseFrontMatter(text, "/skills/demo/SKILL.md");

describe("parseFrontMatter", () => {
  it("reads plain and quoted scalars and returns the body after the block", () => {
    const { data, body } = parse(
      [
        "---",
        "# a comment",
        "name: pdf-tools",
        'description: "Extract text: from \\"PDFs\\""',
        "license: 'Apache-2.0' # trailing comment",
        "quote: 'it''s'",
        "---",
        "",
        "# PDF tools",
        "Use scripts/extract.py.",
      ].join("\n"),
    );
    expect(data).toEqual({
      name: "pdf-tools",
      description: 'Extract text: from "PDFs"',
      license: "Apache-2.0",
      quote: "it's",
    });
    expect(body).toBe("# PDF tools\nUse scripts/extract.py.");
  });

  it("reads block scalars, continuation lines, lists and maps", () => {
    const { data } = parse(
      [
        "---",
        "kept: |",
        "  line one",
        "    indented",
        "folded: >",
        "  a long",
        "  sentence",
        "",
        "  next paragraph",
        "wrapped: first part",
        "  second part",
        "allowed-tools:",
        "  - Read",
        "  - Bash(git status:*)",
        "flow: [a, 'b c', \"d\"]",
        "empty: []",
        "metadata:",
        "  version: 1.2",
        '  author: "Ada"',
        "---",
      ].join("\r\n"),
    );
    expect(data).toEqual({
      kept: "line one\n  indented",
      folded: "a long sentence\nnext paragraph",
      wrapped: "first part second part",
      "allowed-tools": ["Read", "Bash(git status:*)"],
      flow: ["a", "b c", "d"],
      empty: [],
      metadata: { version: "1.2", author: "Ada" },
    });
  });

  it.each([
    ["no opening line", "name: x\n---\n", /SKILL\.md: must start with a front matter block/],
    ["no closing line", "---\nname: x\n", /SKILL\.md: the front matter block is not closed/],
    [
      "a line that is not key: value",
      "---\nname: x\njust words\n---\n",
      /SKILL\.md: line 3: expected `key: value`/,
    ],
    ["a key twice", "---\nname: x\nname: y\n---\n", /SKILL\.md: line 3: "name" appears twice/],
    [
      "a broken quoted string",
      '---\nname: "x\n---\n',
      /SKILL\.md: line 2: unterminated or invalid quoted string/,
    ],
    ["an unclosed list", "---\ntags: [a, b\n---\n", /line 2: unterminated list for "tags"/],
  ])("rejects %s with an error naming the file and line", (_what, text, message) => {
    expect(() => parse(text)).toThrow(FrontMatterError);
    expect(() => parse(text)).toThrow(message);
  });
});
