import type { GuardrailFinding } from "../agent/index.js";

/**
 * Finds one kind of sensitive thing in text: spans, in order, not overlapping. Must be fast (the
 * built-ins scan tens of megabytes a second) and must not throw on any input.
 */
export interface Detector {
  readonly kind: string;
  find(text: string): GuardrailFinding[];
}

/**
 * A detector from a global regular expression, with an optional `accept` that checks each match
 * (a checksum, a digit count) and `prefilter` strings of which one must occur in the text for the
 * expression to run at all (cheap `indexOf` instead of a regex pass).
 */
export function regexDetector(
  kind: string,
  pattern: RegExp,
  options: {
    accept?: (match: string) => boolean;
    prefilter?: readonly string[];
    /** Report this capture group's span instead of the whole match (e.g. a value after its key). */
    group?: number;
  } = {},
): Detector {
  if (!pattern.global) throw new TypeError(`regexDetector "${kind}": the pattern needs the g flag`);
  const { accept, prefilter, group } = options;
  const flags = group !== undefined && !pattern.flags.includes("d") ? `${pattern.flags}d` : pattern.flags;
  return {
    kind,
    find(text) {
      if (prefilter && !prefilter.some((needle) => text.includes(needle))) return [];
      const found: GuardrailFinding[] = [];
      const re = new RegExp(pattern.source, flags);
      for (let m = re.exec(text); m !== null; m = re.exec(text)) {
        if (m[0] === "") {
          re.lastIndex += 1;
          continue;
        }
        const span = group === undefined ? undefined : m.indices?.[group];
        const value = group === undefined ? m[0] : m[group];
        if (value === undefined || (accept && !accept(value))) continue;
        if (span) found.push({ kind, start: span[0], end: span[1] });
        else found.push({ kind, start: m.index, end: m.index + m[0].length });
      }
      return found;
    },
  };
}

/** Every detector's findings, sorted by start; a span inside an earlier one is dropped. */
export function findAll(detectors: readonly Detector[], text: string): GuardrailFinding[] {
  const all: GuardrailFinding[] = [];
  for (const detector of detectors) for (const finding of detector.find(text)) all.push(finding);
  if (all.length < 2) return all;
  all.sort((a, b) => a.start - b.start || b.end - a.end);
  const kept: GuardrailFinding[] = [];
  for (const finding of all) {
    const last = kept.at(-1);
    if (last && finding.start < last.end) {
      if (finding.end > last.end) last.end = finding.end;
      continue;
    }
    kept.push({ ...finding });
  }
  return kept;
}

/** `text` with each finding replaced by `[REDACTED:<kind>]` (or what `mask` gives). */
export function redact(
  text: string,
  findings: readonly GuardrailFinding[],
  mask: (finding: GuardrailFinding) => string = (f) => `[REDACTED:${f.kind}]`,
): string {
  if (findings.length === 0) return text;
  let out = "";
  let at = 0;
  for (const finding of findings) {
    out += text.slice(at, finding.start) + mask(finding);
    at = finding.end;
  }
  return out + text.slice(at);
}
