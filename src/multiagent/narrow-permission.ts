import { isAbsolute, relative, resolve } from "node:path";
import type { PermissionContext, PermissionMode, PermissionRule } from "../permission/index.js";

/** Modes from the narrowest (lets the least through without asking) to the widest. */
const NARROW_TO_WIDE: readonly PermissionMode[] = [
  "explore",
  "plan",
  "dont_ask",
  "default",
  "accept_edits",
  "bypass",
];

/**
 * The permission context a sub-run gets: its own settings, never wider than its parent's. The mode
 * is the narrower of the two (explore parent → explore child; plan, on either side, becomes
 * explore: only the person talking to the top-level agent leaves plan mode); the parent's deny and ask rules
 * apply too (its allow rules do not carry over); working directories stay inside the parent's
 * (none of its own inside them: the parent's); the parent's boundary (the service's workspace) binds
 * the child too, whatever the child's own settings say, for every tool (the parent's sandbox
 * exemptions stay behind; the child's own boundary only when it lies inside the parent's). Narrowing
 * again with the same parent adds nothing.
 */
export function narrowPermission(own: PermissionContext, parent: PermissionContext): PermissionContext {
  const narrower =
    NARROW_TO_WIDE.indexOf(own.mode) <= NARROW_TO_WIDE.indexOf(parent.mode) ? own.mode : parent.mode;
  // A sub-run cannot leave plan mode (its approved plan could widen it past its parent): it explores.
  const mode = narrower === "plan" ? "explore" : narrower;
  const inherited = parent.rules.filter((rule) => rule.behavior !== "allow");
  const keys = new Set(inherited.map(ruleKey));
  const rules = [...inherited, ...own.rules.filter((rule) => !keys.has(ruleKey(rule)))];
  const narrowed: PermissionContext = {
    mode,
    rules,
    workingDirectories: narrowDirectories(own.workingDirectories, parent.workingDirectories),
  };
  // The parent's sandbox exemptions stay behind: a sub-agent's tools are not known to be sandboxed.
  // Its own boundary counts when it lies inside the parent's (the narrower of the two).
  if (parent.boundary) {
    const inner =
      own.boundary && isInside(resolve(own.boundary.directory), resolve(parent.boundary.directory));
    narrowed.boundary = { directory: inner ? own.boundary!.directory : parent.boundary.directory };
  } else if (own.boundary) narrowed.boundary = own.boundary;
  return narrowed;
}

function ruleKey(rule: PermissionRule): string {
  return `${rule.behavior}\u0000${rule.toolName}\u0000${rule.ruleContent ?? ""}`;
}

/**
 * The child's directories that lie inside the parent's; the parent's when none does (or the child
 * names none): an empty list would mean the process's cwd, which may be outside the parent's.
 */
function narrowDirectories(own: string[], parent: string[]): string[] {
  const inside = own.filter((dir) => parent.some((outer) => isInside(resolve(dir), resolve(outer))));
  return inside.length > 0 ? inside : [...parent];
}

function isInside(path: string, dir: string): boolean {
  const rel = relative(dir, path);
  return rel === "" || (!rel.startsWith("..") && !isAbsolute(rel));
}
