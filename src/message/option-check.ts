import { ValidationError } from "./schema.js";

/** The JavaScript type of an option value, as an error message names it. */
export type OptionType = "string" | "number" | "boolean" | "function" | "object" | "array";

/**
 * What one option must be. `type`: the types it may have (an `object` is a non-null, non-array
 * object); `check`: a further test returning what is wrong (undefined: fine).
 */
export interface OptionRule {
  type: OptionType | readonly OptionType[];
  required?: boolean;
  /** How the expected value is described in the error (default: the type names). */
  expected?: string;
  check?(value: unknown): string | undefined;
}

/** The type name of `value` for an error message: `null`, `array`, `string`, `number`, ... */
export function typeName(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "array";
  return typeof value;
}

function matchesType(value: unknown, type: OptionType): boolean {
  if (type === "array") return Array.isArray(value);
  if (type === "object") return typeof value === "object" && value !== null && !Array.isArray(value);
  return typeof value === type;
}

/** Edit distance (insertions, deletions, substitutions; case-insensitive). */
export function editDistance(a: string, b: string): number {
  const x = a.toLowerCase();
  const y = b.toLowerCase();
  let previous = Array.from({ length: y.length + 1 }, (_, i) => i);
  for (let i = 1; i <= x.length; i++) {
    const current = [i];
    for (let j = 1; j <= y.length; j++) {
      const cost = x[i - 1] === y[j - 1] ? 0 : 1;
      current[j] = Math.min(previous[j]! + 1, current[j - 1]! + 1, previous[j - 1]! + cost);
    }
    previous = current;
  }
  return previous[y.length]!;
}

/** The known name closest to `name` within `maxDistance` edits (ties: the first known), if any. */
export function closestName(name: string, known: readonly string[], maxDistance = 2): string | undefined {
  let best: string | undefined;
  let bestDistance = maxDistance + 1;
  for (const candidate of known) {
    const distance = editDistance(name, candidate);
    if (distance < bestDistance) {
      best = candidate;
      bestDistance = distance;
    }
  }
  return best;
}

/** `; did you mean "x"?` when a known name is within 2 edits of `name`, else the list of known names. */
export function suggestName(name: string, known: readonly string[]): string {
  const closest = closestName(name, known);
  return closest === undefined
    ? ` (known: ${known.join(", ")})`
    : `; did you mean "${closest}"? (known: ${known.join(", ")})`;
}

/**
 * Checks a JavaScript caller's options object against `rules`, once, where it is given (a
 * constructor): an unknown key is an error with a "did you mean" (or the hint in `aliases`, for a
 * name another API spells differently), a value of the wrong type an error naming the expected and
 * the given type. `undefined` counts as absent. Throws a ValidationError (`invalid <what>: key: ...`).
 */
export function checkOptions(
  what: string,
  options: unknown,
  rules: Readonly<Record<string, OptionRule>>,
  aliases: Readonly<Record<string, string>> = {},
): void {
  if (typeof options !== "object" || options === null || Array.isArray(options)) {
    throw new ValidationError(what, "", `expected an options object, got ${typeName(options)}`);
  }
  const known = Object.keys(rules);
  for (const key of Object.keys(options)) {
    if (Object.hasOwn(rules, key)) continue;
    const hint = Object.hasOwn(aliases, key) ? `; ${aliases[key]}` : suggestName(key, known);
    throw new ValidationError(what, key, `unknown option${hint}`);
  }
  for (const [key, rule] of Object.entries(rules)) {
    const value = (options as Record<string, unknown>)[key];
    if (value === undefined) {
      if (rule.required) throw new ValidationError(what, key, "is required");
      continue;
    }
    const types: readonly OptionType[] = typeof rule.type === "string" ? [rule.type] : rule.type;
    if (!types.some((type) => matchesType(value, type))) {
      throw new ValidationError(
        what,
        key,
        `expected ${rule.expected ?? types.join(" or ")}, got ${typeName(value)}`,
      );
    }
    const problem = rule.check?.(value);
    if (problem !== undefined) throw new ValidationError(what, key, problem);
  }
}

/**
 * Compile-time check that a rule table covers every key of an options type: `CoversKeys<Options,
 * typeof RULES>` fails to compile when Options gains a key without a rule.
 */
export type CoversKeys<T, R extends Record<keyof T, unknown>> =
  R extends Record<keyof T, unknown> ? true : never;
