import { type Command, forEachChild, type SyntaxNode, type Word } from "unbash";
import { SAFE_VARIABLES } from "../bash-commands.js";

/** What one shell word becomes before the command runs, as far as the text alone tells. */
export interface WordExpansion {
  /** The words after quote removal and brace expansion (`a{b,c}` → `ab`, `ac`). */
  values: string[];
  /** For each value, a glob pattern (quoted parts escaped) when an unquoted glob is in it. */
  globs: (string | undefined)[];
  /** Part of the word is only known at run time (`$x`, `${x:-y}`, `$(...)`, `<(...)`, `$((...))`). */
  dynamic: boolean;
}

const RUNTIME_PARTS = new Set([
  "SimpleExpansion",
  "ParameterExpansion",
  "CommandExpansion",
  "ArithmeticExpansion",
  "ProcessSubstitution",
]);
const GLOB_SPECIALS = /[*?[\]{}()!+@\\]/g;
const MAX_EXPANSIONS = 64;

interface Piece {
  value: string;
  pattern: string;
  glob: boolean;
}

/** Expands a word the way the shell would before globbing: quotes removed, braces expanded. */
export function expandWord(word: Word): WordExpansion {
  const dynamic = containsRuntimePart(word);
  const parts = word.parts ?? [{ type: "Literal", value: word.value, text: word.text }];
  let pieces: Piece[] = [{ value: "", pattern: "", glob: false }];
  for (const part of parts) {
    const options = piecesOf(part as { type: string; value?: string; text: string });
    if (options === undefined) return { values: [word.value], globs: [undefined], dynamic: true };
    const next: Piece[] = [];
    for (const head of pieces) {
      for (const option of options) {
        next.push({
          value: head.value + option.value,
          pattern: head.pattern + option.pattern,
          glob: head.glob || option.glob,
        });
      }
    }
    if (next.length > MAX_EXPANSIONS) return { values: [word.value], globs: [undefined], dynamic: true };
    pieces = next;
  }
  return {
    values: pieces.map((piece) => piece.value),
    globs: pieces.map((piece) => (piece.glob ? piece.pattern : undefined)),
    dynamic,
  };
}

function piecesOf(part: { type: string; value?: string; text: string }): Piece[] | undefined {
  switch (part.type) {
    case "Glob":
    case "ExtendedGlob":
      return [{ value: part.text, pattern: part.text, glob: true }];
    case "BraceExpansion": {
      // Quotes, escapes or expansions inside braces (`{'.env',x}`, `{\.env,a}`) are not modelled.
      if (/['"\\$`]/.test(part.text)) return undefined;
      const alternatives = braceAlternatives(part.text);
      if (!alternatives) return undefined;
      return alternatives.map((text) => ({ value: text, pattern: text, glob: /[*?[]/.test(text) }));
    }
    case "DoubleQuoted":
    case "LocaleString": {
      const inner =
        (part as { parts?: readonly { type: string; value?: string; text: string }[] }).parts ?? [];
      const value = inner
        .map((child) => (child.type === "Literal" ? (child.value ?? child.text) : child.text))
        .join("");
      return [{ value, pattern: value.replace(GLOB_SPECIALS, "\\$&"), glob: false }];
    }
    case "Literal":
    case "SingleQuoted":
    case "AnsiCQuoted": {
      const value = part.value ?? part.text;
      return [{ value, pattern: value.replace(GLOB_SPECIALS, "\\$&"), glob: false }];
    }
    default:
      return [{ value: part.text, pattern: part.text.replace(GLOB_SPECIALS, "\\$&"), glob: false }];
  }
}

/** `{a,b}` → a, b; `{1..3}` → 1, 2, 3; `{a..c}` → a, b, c; nested braces expanded; undefined when too big. */
export function braceAlternatives(text: string): string[] | undefined {
  const inner = text.slice(1, -1);
  const range = /^(-?\d+|[A-Za-z])\.\.(-?\d+|[A-Za-z])$/.exec(inner);
  if (range) return rangeOf(range[1]!, range[2]!);
  const alternatives: string[] = [];
  let depth = 0;
  let start = 0;
  for (let index = 0; index < inner.length; index++) {
    const char = inner[index];
    if (char === "\\") index++;
    else if (char === "{") depth++;
    else if (char === "}") depth--;
    else if (char === "," && depth === 0) {
      alternatives.push(inner.slice(start, index));
      start = index + 1;
    }
  }
  alternatives.push(inner.slice(start));
  const expanded = alternatives.flatMap((alternative) => expandBracesIn(alternative) ?? [alternative]);
  return expanded.length > MAX_EXPANSIONS ? undefined : expanded;
}

function expandBracesIn(text: string): string[] | undefined {
  const open = text.indexOf("{");
  if (open === -1) return undefined;
  let depth = 0;
  for (let index = open; index < text.length; index++) {
    if (text[index] === "{") depth++;
    else if (text[index] === "}" && --depth === 0) {
      const middle = braceAlternatives(text.slice(open, index + 1)) ?? [text.slice(open, index + 1)];
      const rest = expandBracesIn(text.slice(index + 1)) ?? [text.slice(index + 1)];
      return middle.flatMap((m) => rest.map((r) => text.slice(0, open) + m + r));
    }
  }
  return undefined;
}

function rangeOf(from: string, to: string): string[] | undefined {
  const numeric = /\d/.test(from);
  const start = numeric ? Number(from) : from.charCodeAt(0);
  const end = numeric ? Number(to) : to.charCodeAt(0);
  if (Math.abs(end - start) >= MAX_EXPANSIONS) return undefined;
  const step = end >= start ? 1 : -1;
  const out: string[] = [];
  for (let value = start; step > 0 ? value <= end : value >= end; value += step) {
    out.push(numeric ? String(value) : String.fromCharCode(value));
  }
  return out;
}

/** Whether anything in the node is only known at run time. */
export function containsRuntimePart(node: SyntaxNode): boolean {
  let found = false;
  const visit = (child: SyntaxNode): void => {
    if (found) return;
    if (RUNTIME_PARTS.has(child.type)) found = true;
    else forEachChild(child, visit);
  };
  forEachChild(node, visit);
  return found;
}

/** Whether every expansion in the command is a plain `$NAME` of a harmless variable. */
export function onlySafeExpansions(node: Command): boolean {
  let safe = true;
  const visit = (child: SyntaxNode): void => {
    if (child.type === "SimpleExpansion") {
      if (!SAFE_VARIABLES.has(child.text.replace(/^\$\{?|\}$/g, ""))) safe = false;
    } else if (
      child.type === "ParameterExpansion" ||
      child.type === "CommandExpansion" ||
      child.type === "ArithmeticExpansion" ||
      child.type === "ProcessSubstitution"
    ) {
      safe = false;
    } else {
      forEachChild(child, visit);
    }
  };
  for (const arg of node.args) visit(arg);
  return safe;
}
