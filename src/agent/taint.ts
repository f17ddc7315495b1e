import type { Msg } from "../message/index.js";
import type { PermissionDecision } from "../permission/index.js";
import type { AgentState } from "../state/index.js";
import type { Tool } from "../tool/index.js";
import type { ReplyRun } from "./reply-run.js";
import type { ReplyStages } from "./reply-stages.js";
import { carryMarks, replyTaint, taintReply } from "./taint-marks.js";
import type { TaintOptions, TaintSource } from "./taint-options.js";

const FILE_TOOLS = new Set(["Read", "Grep", "Glob"]);
/** The RAG layer's `search_knowledge` tool (rag/rag-middleware.ts; a test checks the two agree). */
export const KNOWLEDGE_TOOL_SOURCE = { search_knowledge: "a RAG document" } as const;
const PROVIDER_WEB_TOOLS: Record<string, string> = {
  web_search: "web search results",
  web_fetch: "a web page",
  google_search: "web search results",
  url_context: "a web page",
};

/** A path the session did not open to the agent: absolute and under none of the working directories. */
function outsideWorkspace(path: string, state: AgentState): boolean {
  if (!path.startsWith("/") && !path.startsWith("~")) return path.split(/[\\/]/).includes("..");
  const dirs = state.permission.workingDirectories;
  return !dirs.some((dir) => path === dir || path.startsWith(dir.endsWith("/") ? dir : `${dir}/`));
}

function namedSource(tools: Record<string, string>): TaintSource {
  const exact = new Map<string, string>();
  const prefixes: Array<[string, string]> = [];
  for (const [name, what] of Object.entries(tools)) {
    if (name.endsWith("*")) prefixes.push([name.slice(0, -1), what]);
    else exact.set(name, what);
  }
  return ({ name }) => {
    const what = exact.get(name) ?? prefixes.find(([prefix]) => name.startsWith(prefix))?.[1];
    return what === undefined ? undefined : `${what} (${name})`;
  };
}

const fileSource: TaintSource = ({ name, input }, _tool, state) => {
  if (!FILE_TOOLS.has(name)) return undefined;
  const path = (input as { path?: unknown } | null)?.path;
  if (typeof path !== "string" || !outsideWorkspace(path, state)) return undefined;
  return `a file outside the workspace (${path})`;
};

/** Whether the policy asks for `tool` while tainted. */
function asksFor(policy: NonNullable<TaintOptions["whileTainted"]>["ask"], tool: Tool): boolean {
  if (policy === "all") return true;
  if (Array.isArray(policy)) return policy.includes(tool.name);
  return !tool.readOnly;
}

/**
 * The stages of a reply that tracks taint (chosen once, when the Agent is built): the reply starts
 * marked with the marks still in memory (taint-marks.ts); a call of an untrusted source marks the
 * reply when it runs, as does a provider's web tool run in the model's answer; while it is marked,
 * the decision of a call the policy covers becomes an ask (a safety ask: no allow rule or mode
 * silences it) that says why, and denied tools are denied.
 */
export function taintedStages(inner: ReplyStages, run: ReplyRun, options: TaintOptions): ReplyStages {
  const sources: TaintSource[] = [
    namedSource({ ...(options.knowledge === false ? {} : KNOWLEDGE_TOOL_SOURCE), ...options.tools }),
    ...(options.filesOutsideWorkspace === false ? [] : [fileSource]),
    ...(options.sources ?? []),
  ];
  const policy = options.whileTainted ?? {};
  const deny = new Set(policy.deny ?? []);
  const providerWeb = options.providerWebTools !== false;
  const keep = options.scope !== "reply";
  return {
    ...inner,
    beforeReasoning: (iteration) => {
      // The first reasoning step comes once per reply, right after it started.
      if (iteration === 1) carryMarks(run.state, keep);
      return inner.beforeReasoning(iteration);
    },
    afterReasoning: async (reply: Msg) => {
      await inner.afterReasoning(reply);
      if (!providerWeb) return;
      for (const block of reply.content) {
        if (block.type !== "tool_result" || block.executedBy !== "provider") continue;
        const what = PROVIDER_WEB_TOOLS[block.name];
        if (what) taintReply(run.state, `${what} (the provider's ${block.name})`);
      }
    },
    decide: async (tool, input, context) => {
      const decision = await inner.decide(tool, input, context);
      const taint = replyTaint(run.state);
      if (!taint || decision.behavior === "deny") return decision;
      const after = `after reading ${taint.join(", ")}`;
      if (deny.has(tool.name)) {
        return { behavior: "deny", reason: `${tool.name} is not allowed ${after}`, safety: true };
      }
      if (decision.behavior === "allow" && asksFor(policy.ask, tool)) {
        const why = `the reply holds untrusted content that may be steering it`;
        // dont_ask never asks: what would ask is denied.
        if (context.mode === "dont_ask")
          return {
            behavior: "deny",
            reason: `${tool.name} is not run ${after} (dont_ask mode): ${why}`,
            safety: true,
          };
        const asked: PermissionDecision = {
          behavior: "ask",
          reason: `${tool.name} asks ${after}: ${why}`,
          safety: true,
        };
        return asked;
      }
      return decision;
    },
    callTool: (call, tool, input, ctx, decided) => {
      for (const source of sources) {
        const what = source({ name: call.name, input }, tool, run.state);
        if (what !== undefined) taintReply(run.state, what);
      }
      return inner.callTool(call, tool, input, ctx, decided);
    },
  };
}
