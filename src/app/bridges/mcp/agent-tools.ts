import type { Server } from "@modelcontextprotocol/sdk/server/index.js";
import type { CallToolResult, Tool } from "@modelcontextprotocol/sdk/types.js";
import { userMsg } from "../../../message/index.js";
import type { RunHandle } from "../../server/runtime/run-execution.js";
import type { ConfirmAnswer, ServiceRuntime } from "../../server/runtime/service-runtime.js";
import { collectRun } from "../follow-stream.js";
import {
  finishChat,
  type PendingToolCall,
  startChat,
  translateChatEvent,
} from "../openai/chat-translation.js";

/** The arguments every agent tool takes. */
export const AGENT_TOOL_INPUT = {
  type: "object",
  properties: {
    prompt: { type: "string", description: "What to ask the agent." },
    session_id: {
      type: "string",
      description:
        "Continue this session of yours (the `session_id` of an earlier result); default a new one.",
    },
  },
  required: ["prompt"],
} as const;

/** Each agent of the service as an MCP tool named after it. */
export function agentTools(runtime: ServiceRuntime): Tool[] {
  return runtime.agentNames.map((name) => ({
    name,
    title: `Agent ${name}`,
    description: `Ask the agent "${name}" and get its final answer. Its own tools run on the AgentScope service; progress notifications stream the reply.`,
    inputSchema: AGENT_TOOL_INPUT as unknown as Tool["inputSchema"],
  }));
}

/** What the call handler needs of the MCP request it answers. */
export interface AgentCallContext {
  user: string;
  signal: AbortSignal;
  /** Sends one progress notification (when the client gave a progress token). */
  progress?: (message: string) => Promise<void>;
  /** The MCP server of the caller's connection, for elicitation (when the client supports it). */
  server: Server;
}

/**
 * Runs one reply of agent `name` for an MCP `tools/call`: follows the service's event log (no second
 * loop), sends each text delta as a progress notification, asks the client (elicitation) for every
 * confirmation when it supports that, and returns the final text (with the structured output as
 * `structuredContent`). A reply still waiting (no elicitation, a refusal to answer, or an external
 * execution) returns a result that names what waits and how to answer it through the service's API.
 */
export async function callAgentTool(
  runtime: ServiceRuntime,
  name: string,
  args: Record<string, unknown> | undefined,
  ctx: AgentCallContext,
): Promise<CallToolResult> {
  if (!runtime.agent(name)) return failure(`unknown tool "${name}" (have: ${runtime.agentNames.join(", ")})`);
  const prompt = args?.prompt;
  if (typeof prompt !== "string" || prompt === "")
    return failure("prompt: send the question as a non-empty string");
  const requested = args?.session_id;
  if (requested !== undefined && typeof requested !== "string") return failure("session_id: send a string");
  const sessionId =
    requested ?? (await runtime.createSession(ctx.user, { agent: name, title: "MCP tool call" })).sessionId;
  if (requested !== undefined) {
    const record = await runtime.getSession(ctx.user, requested);
    if (record.agent !== name)
      return failure(`session_id: session "${requested}" talks to agent "${record.agent}"`);
  }
  const translation = startChat(sessionId);
  let text = "";
  let handle: RunHandle = await runtime.startReply(ctx.user, sessionId, [userMsg(prompt)]);
  for (;;) {
    let sent = Promise.resolve();
    await collectRun(runtime, ctx.user, handle, ctx.signal, (event) => {
      const delta = translateChatEvent(translation, event)?.content;
      if (delta === undefined) return;
      text += delta;
      if (ctx.progress) sent = sent.then(() => ctx.progress?.(delta)).catch(() => {});
    });
    await sent;
    const answers = await elicitConfirmations(ctx, translation.pending);
    if (answers === undefined) break;
    translation.pending = [];
    handle = await runtime.confirm(ctx.user, sessionId, answers, undefined, { via: "mcp" });
  }
  const finish = finishChat(translation);
  const meta = { agentscope: finish.extension };
  if (finish.error) return { ...failure(`the reply failed: ${finish.error.message}`), _meta: meta };
  const output = text + (finish.suffix ?? "");
  const structured = finish.extension.structured_output;
  return {
    content: [{ type: "text", text: output }],
    ...(isRecord(structured) ? { structuredContent: structured } : {}),
    _meta: meta,
  };
}

/**
 * Asks the client about each confirmation the reply waits for: approve (true) or not. Undefined when
 * there is nothing to ask, the client cannot elicit, or the reply also waits for an external result.
 */
async function elicitConfirmations(
  ctx: AgentCallContext,
  pending: PendingToolCall[],
): Promise<ConfirmAnswer[] | undefined> {
  if (pending.length === 0 || pending.some((call) => call.kind !== "confirm")) return undefined;
  if (!ctx.server.getClientCapabilities()?.elicitation) return undefined;
  const answers: ConfirmAnswer[] = [];
  for (const call of pending) {
    const result = await ctx.server.elicitInput(
      {
        message: `Allow ${call.tool_name}(${call.input})?${call.reason ? ` ${call.reason}` : ""}`,
        requestedSchema: {
          type: "object",
          properties: { approved: { type: "boolean", title: "Approve", description: "Run this tool call" } },
          required: ["approved"],
        },
      },
      { signal: ctx.signal },
    );
    const approved = result.action === "accept" && result.content?.approved === true;
    answers.push({
      toolCallId: call.tool_call_id,
      confirmed: approved,
      ...(approved
        ? {}
        : { reason: result.action === "accept" ? "denied by the user" : `the user chose ${result.action}` }),
    });
  }
  return answers;
}

function failure(message: string): CallToolResult {
  return { content: [{ type: "text", text: message }], isError: true };
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
