import type { AgentState } from "../state/index.js";
import type { Tool } from "../tool/index.js";

/**
 * Where untrusted content came from, in words for an ask: "a web page (web_fetch)". A source says,
 * for one call that runs, whether its result is untrusted (undefined: it is not).
 */
export type TaintSource = (
  call: { name: string; input: unknown },
  tool: Tool,
  state: AgentState,
) => string | undefined;

export interface TaintOptions {
  /**
   * Tools whose results are untrusted, by name or `prefix*` (`"web_fetch"`, `"mcp__browser__*"` for
   * every tool of an MCP server you do not trust), with what they read: `{ web_fetch: "a web page" }`.
   */
  tools?: Record<string, string>;
  /** More sources of your own (a tool that reads mail, another user's messages, ...). */
  sources?: TaintSource[];
  /**
   * Whether Read, Grep and Glob of a path outside the session's working directories taint the reply
   * (default true): a file the user did not put in their workspace may say anything.
   */
  filesOutsideWorkspace?: boolean;
  /** Whether the provider's own web search and fetch results taint the reply (default true). */
  providerWebTools?: boolean;
  /**
   * Whether the knowledge bases' excerpts taint the reply (default true): the `search_knowledge` tool's
   * results (agentic RAG; the static RAG middleware marks the reply itself, see its `taint` option).
   */
  knowledge?: boolean;
  /**
   * What a tainted reply may do. `ask`: calls that would be allowed ask instead, with the reason —
   * `"not_read_only"` (default: writes, network, shell: every tool not marked read-only), `"all"`,
   * or a list of tool names. `deny`: tools refused outright while tainted.
   */
  whileTainted?: { ask?: "not_read_only" | "all" | string[]; deny?: string[] };
}
