/**
 * A finished session (or one reply of it) as an eval case (`GET /v1/sessions/:id/eval-case`): the
 * case in the shape `agentscope/eval` reads (`parseCase`, a dataset line), and the dataset file.
 */
export interface SessionEvalCase {
  /** The case (an `EvalCase` of agentscope/eval, as plain JSON). */
  case: Record<string, unknown>;
  /** The case as a one-line JSONL dataset (what `agentscope eval <file>` reads). */
  jsonl: string;
  /** A file name for it: `<case id>.jsonl`. */
  fileName: string;
}

/** A tool of an agent as the inspector shows it: what the model is offered and how calls are judged. */
export interface ToolProfile {
  name: string;
  description: string;
  /** The JSON Schema of its arguments, as offered to the model. */
  inputSchema: Record<string, unknown>;
  group: string;
  /** Offered to the model now (its group is active). */
  active: boolean;
  readOnly: boolean;
  concurrencySafe: boolean;
  editsFiles: boolean;
  /** Runs outside the agent: the client sends its result. */
  external: boolean;
  /** The tool judges its own calls (`checkPermissions`: e.g. Bash reads the command). */
  ownCheck: boolean;
  /** The MCP server it comes from (`mcp__<server>__<tool>`). */
  mcpServer?: string;
  /** The session's rules that name this tool (`Bash(git status:*)`), as written. */
  rules: Array<{ behavior: "allow" | "deny" | "ask"; rule: string; source: string }>;
  /** What a call with no rule of its own gets in this session's mode, in words. */
  fallback: string;
}

/**
 * What an agent is, for one session (`GET /v1/sessions/:id/agent`): the system prompt exactly as
 * the next model call sends it (middleware hooks and tool-group notes applied), the model, the tools
 * with their schemas and permission behaviour, the rules and mode in force, the middleware, MCP
 * servers, skills and the workspace the session runs in.
 */
export interface AgentProfile {
  name: string;
  /** The system prompt of the next model call, middleware applied. */
  systemPrompt: string;
  /** The summary of compressed context sent after it, when the session has one. */
  summary?: string;
  model: { name: string; provider: string; contextSize: number };
  fallbackModel?: { name: string; provider: string; contextSize: number };
  maxIters: number;
  /** Compression and image limits (`context` option). */
  context: { triggerRatio?: number; reserveRatio?: number; maxImages?: number; summaryModel?: string };
  tools: ToolProfile[];
  groups: Array<{ name: string; description: string; active: boolean }>;
  permission: {
    mode: string;
    rules: Array<{ behavior: "allow" | "deny" | "ask"; rule: string; source: string }>;
    workingDirectories: string[];
    /** The directory the session may never leave (the service's workspace). */
    boundary?: string;
  };
  /** Each middleware by name, with the hooks it has (`systemPrompt`, `onModelCall`, ...). */
  middlewares: Array<{ name: string; hooks: string[] }>;
  /** MCP servers, by the tools registered from them. */
  mcpServers: Array<{ name: string; tools: string[] }>;
  skills: Array<{ name: string; description: string }>;
  /** The session's workspace, on a service that keeps them. */
  workspace?: { scope: "session" | "user"; sandboxed: boolean };
}

/**
 * A tool run by hand from the studio's playground (`POST /v1/sessions/:id/tools/:name/run`): the
 * permission engine's decision for that exact input in the session, and what the tool answered
 * when the decision (or your approval of an ask) let it run.
 */
export interface ToolTrial {
  tool: string;
  /** The decision for the input as parsed: `allow`, `ask` (a person must approve) or `deny`. */
  decision: {
    behavior: "allow" | "deny" | "ask";
    reason: string;
    rule?: string;
    safety?: boolean;
    suggestedRules?: string[];
  };
  /** Whether the tool ran: allowed, or asked and approved in the request. */
  ran: boolean;
  /** Who let it run. */
  approvedBy?: "engine" | "person";
  /** The tool's output as text (data blocks as `[data: type name]`), when it ran. */
  result?: { state: "success" | "error"; output: string };
}

/**
 * A session's agent state as stored (`GET /v1/sessions/:id/state`): the state and its store version;
 * with `?checkpoint=cp-3`, the state that checkpoint holds and the version it was.
 */
export interface SessionStateVersion {
  /** The store's version of the state: 1 after the first save, +1 per save. */
  version: number;
  /** When the service read it (ISO 8601). */
  readAt: string;
  /** The `AgentState` (context, summary, replyContext, permission, toolContext, tasks, middleware), as plain JSON. */
  state: Record<string, unknown>;
  /** Read with `?checkpoint=`: the checkpoint whose state this is (docs/time-travel.md). */
  checkpoint?: string;
}
