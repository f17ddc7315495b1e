import { readFileSync } from "node:fs";
import { join } from "node:path";
import ts from "typescript";

const REPO = join(import.meta.dirname, "../../../..");

/** The files whose command strings the differential test runs, relative to the repository. */
export const CORPUS_SOURCES = [
  "test/tool/builtin/bash-corpus.test.ts",
  "test/tool/builtin/bash-analysis.test.ts",
  "test/tool/builtin/bash-properties.test.ts",
  "test/tool/builtin/bash-run.test.ts",
  "docs/permissions.md",
];

/**
 * Every string in the Bash test files and every code span in docs/permissions.md, deduplicated:
 * the existing corpus, read where it is kept so the two never drift apart. Most strings are not
 * commands at all (test names, rules); the permission check refuses those and they never run.
 */
export function corpusCommands(sources: readonly string[] = CORPUS_SOURCES): string[] {
  const out = new Set<string>();
  for (const source of sources) {
    const text = readFileSync(join(REPO, source), "utf8");
    const strings = source.endsWith(".md") ? codeSpans(text) : stringLiterals(source, text);
    for (const value of strings) if (value.trim() !== "" && value.length < 500) out.add(value);
  }
  return [...out];
}

/** The value of every string literal and template without substitutions in a TypeScript file. */
export function stringLiterals(fileName: string, text: string): string[] {
  const file = ts.createSourceFile(fileName, text, ts.ScriptTarget.Latest, false, ts.ScriptKind.TS);
  const found: string[] = [];
  const visit = (node: ts.Node): void => {
    if (ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node)) found.push(node.text);
    ts.forEachChild(node, visit);
  };
  visit(file);
  return found;
}

/** The text of every inline code span and every line of every fenced code block in Markdown. */
export function codeSpans(markdown: string): string[] {
  const found: string[] = [];
  const fence = /^```[^\n]*\n([\s\S]*?)^```/gm;
  for (const match of markdown.matchAll(fence)) found.push(...match[1]!.split("\n"));
  const prose = markdown.replace(fence, "");
  for (const match of prose.matchAll(/`([^`\n]+)`/g)) found.push(match[1]!);
  return found;
}
