import type { z } from "zod";
import { suggestName, typeName } from "../../../message/option-check.js";

/** What a config error names for a value that is not a built-in tool name nor a Tool object. */
export function toolFieldMessage(value: unknown, builtins: readonly string[]): string {
  const type = typeName(value);
  const what =
    typeof value === "string"
      ? `"${value}" is not a built-in tool`
      : `${/^[aeiou]/.test(type) ? "an" : "a"} ${type} is not a tool`;
  const hint =
    typeof value === "string" ? suggestName(value, builtins) : ` (built-in tools: ${builtins.join(", ")})`;
  return `${what}${hint}; or pass a Tool object in a TypeScript config`;
}

interface Def {
  type?: string;
  shape?: Record<string, z.ZodType>;
  element?: z.ZodType;
  innerType?: z.ZodType;
  in?: z.ZodType;
  options?: z.ZodType[];
}

const defOf = (schema: z.ZodType): Def => (schema as unknown as { _zod: { def: Def } })._zod.def;

/** The object schemas a config path leads to (through arrays, optionals, defaults, pipes and unions). */
function objectsAt(schema: z.ZodType, path: readonly PropertyKey[]): Array<Record<string, z.ZodType>> {
  const def = defOf(schema);
  const inner = def.innerType ?? (def.type === "pipe" ? def.in : undefined);
  if (inner) return objectsAt(inner, path);
  if (def.type === "union") return (def.options ?? []).flatMap((option) => objectsAt(option, path));
  if (path.length === 0) return def.type === "object" && def.shape ? [def.shape] : [];
  const [head, ...rest] = path;
  if (def.type === "array" && def.element && typeof head === "number") return objectsAt(def.element, rest);
  if (def.type === "object" && def.shape && typeof head === "string" && Object.hasOwn(def.shape, head))
    return objectsAt(def.shape[head]!, rest);
  return [];
}

/** Keys the JavaScript API spells differently, with the config's name (used where that name is valid). */
const API_SPELLINGS: Record<string, string> = {
  toolkit: "tools",
};

function unknownKey(key: string, known: readonly string[]): string {
  const configName = API_SPELLINGS[key];
  if (configName !== undefined && known.includes(configName))
    return `unknown key "${key}": the config calls it "${configName}" (\`${key}\` is the Agent constructor's name)`;
  return `unknown key "${key}"${suggestName(key, known)}`;
}

/**
 * The message for a config issue, with the valid values where zod's own message lacks them: for an
 * unknown key, a "did you mean" among the keys that object takes (or the list of them).
 */
export function configIssueMessage(issue: z.core.$ZodIssue, root: z.ZodType): string {
  if (issue.code !== "unrecognized_keys") return issue.message;
  const known = [...new Set(objectsAt(root, issue.path).flatMap((shape) => Object.keys(shape)))];
  if (known.length === 0) return issue.message;
  return issue.keys.map((key) => unknownKey(key, known)).join("; ");
}
