/**
 * How much the engine lets through without asking. `plan`: read-only tools (and the task tools) run,
 * everything else is denied, until the agent proposes a plan the user approves (a tool with
 * `leavesPlanMode`, e.g. `PlanPropose`), which switches to the mode the user picks.
 */
export type PermissionMode = "default" | "accept_edits" | "explore" | "bypass" | "dont_ask" | "plan";

export type RuleBehavior = "allow" | "deny" | "ask";

/** Where a rule came from. */
export type RuleSource = "user" | "project" | "session" | "config" | "cli" | "confirmation";

/**
 * A permission rule. String form: `ToolName` or `ToolName(content)`, e.g. `Bash(git status:*)`,
 * `Read(src/**)`, `mcp__github`.
 */
export interface PermissionRule {
  toolName: string;
  ruleContent?: string;
  behavior: RuleBehavior;
  source: RuleSource;
}

/**
 * The engine's verdict for one call. `ask` pauses the reply for a person. A `safety` ask cannot be
 * silenced by allow rules (only bypass mode ignores it; dont_ask turns it into a deny).
 */
export interface PermissionDecision {
  behavior: "allow" | "deny" | "ask";
  /** Why, in words a person can read. */
  reason: string;
  /** The rule that decided it, if one did. */
  rule?: PermissionRule;
  /** Rules that would allow calls like this one from now on (string form). */
  suggestedRules?: string[];
  safety?: boolean;
}

/** What a tool's own check may answer: a decision, or `passthrough` to let the engine go on. */
export type ToolPermissionResult =
  | PermissionDecision
  | { behavior: "passthrough"; suggestedRules?: string[] };

/** Plain, serialisable permission settings; lives in the agent state. */
export interface PermissionContext {
  mode: PermissionMode;
  rules: PermissionRule[];
  /** Directories the agent may work in (resolved to real paths by the engine). */
  workingDirectories: string[];
  /**
   * A directory this session may never leave (the service's per-user workspace): a call with a path
   * (`pathsOf`) whose real path is outside it is denied in every mode, bypass included, and no
   * approval can run it. Absent: no boundary beyond the working-directory asks.
   */
  boundary?: PermissionBoundary;
}

/** The directory a session is confined to, as `PermissionContext.boundary` holds it. */
export interface PermissionBoundary {
  /** Absolute path; judged as a real path (symlinks followed). */
  directory: string;
  /**
   * Tools confined by a sandbox of their own (the service's bubblewrap Bash): their paths are left
   * to it, so a sandboxed command may still read the system the sandbox shows read-only.
   */
  sandboxedTools?: string[];
}

/** What the engine tells `matchRule` about the rule being matched. */
export interface RuleMatchContext {
  behavior: RuleBehavior;
  context: PermissionContext;
}

/** The small view of a tool the engine needs. */
export interface PermissionSubject {
  name: string;
  /** The tool never changes anything. */
  readOnly: boolean;
  /** The tool edits files (auto-allowed inside working directories in accept_edits mode). */
  editsFiles?: boolean;
  /** Per-input read-only check (e.g. Bash: `ls` is read-only, `rm` is not). */
  isReadOnly?(input: unknown): boolean;
  checkPermissions?(
    input: unknown,
    context: PermissionContext,
  ): ToolPermissionResult | Promise<ToolPermissionResult>;
  /**
   * Whether a rule's content (the part in parentheses) matches this input. `match` tells which kind
   * of rule is asking (a compound shell command matches an allow rule only if every part does, a
   * deny or ask rule if any part does) and the context that relative path patterns resolve against.
   */
  matchRule?(ruleContent: string, input: unknown, match?: RuleMatchContext): boolean;
  /**
   * Files and directories this call reads or writes, as given (relative paths resolve against the
   * first working directory). The engine asks before touching a dangerous path or one outside the
   * working directories, and auto-allows read-only and (in accept_edits) editing calls inside them.
   * The engine passes the context, so a tool can expand patterns against the working directories.
   * A tool without it is judged on the places its arguments name (`impliedPaths`): declare
   * `pathsOf: () => []` when its strings are never paths.
   */
  pathsOf?(input: unknown, context?: PermissionContext): string[];
  /** Rules to offer the user when this call asks. */
  suggestRules?(input: unknown): string[];
  /**
   * The tool proposes a plan to leave plan mode: in plan mode it always asks (a safety ask no allow
   * rule silences) instead of being denied; outside plan mode it is judged like any other tool.
   */
  leavesPlanMode?: boolean;
}
