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
   * Whether messages the agent observes (`agent.observe(...)`, e.g. a `MsgHub` broadcast) mark its
   * replies. Default true: every observed message from another sender (by the Msg's `name`) marks
   * them, as "a message from mallory (hub)"; the agent's own messages do not, nor those of the names
   * in `trust` (exact names: the hub's own participants, a person's name). `false`: observing marks
   * nothing. The name is what the Msg says: a hub that lets anyone broadcast under any name should
   * trust no name.
   */
  observed?: boolean | { trust: string[] };
  /**
   * How long a mark lasts. `"memory"` (default): while the untrusted content is in the agent's
   * memory. The mark is kept in the state (`state.taint`) with the messages that hold it (the reply
   * whose tool read it, the observed message); each later reply starts marked while one of them is
   * in the context (or in the compression summary that replaced it), and the mark goes when they
   * leave it (cleared, deleted, rewound). `"reply"`: a mark ends with its reply (an observed message
   * marks the next reply only).
   */
  scope?: "memory" | "reply";
  /**
   * What a tainted reply may do. `ask`: calls that would be allowed ask instead, with the reason —
   * `"not_read_only"` (default: writes, network, shell: every tool not marked read-only), `"all"`,
   * or a list of tool names. `deny`: tools refused outright while tainted.
   */
  whileTainted?: { ask?: "not_read_only" | "all" | string[]; deny?: string[] };
}
