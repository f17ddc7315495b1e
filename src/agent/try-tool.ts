import { AgentScopeError, toErrorInfo } from "../message/index.js";
import { decideCall, formatRule } from "../permission/index.js";
import type { ToolTrial } from "../protocol/index.js";
import type { AgentState } from "../state/index.js";
import { type ToolContext, ToolError, ToolInputError } from "../tool/index.js";
import { MiddlewareRunner } from "./middleware-runner.js";
import type { RunConfig } from "./reply-run.js";
import { chunkToPart, isAsyncIterable, type OutputPart, valueToParts } from "./tool-output.js";

export interface TryToolOptions {
  /** Run the call if the engine asks (a person approving it, as an approval card would). */
  approved?: boolean;
  signal?: AbortSignal;
}

const textOf = (parts: OutputPart[]) =>
  parts
    .map((part) =>
      part.kind === "text"
        ? part.text
        : `[data: ${part.block.source.mediaType} ${part.block.name ?? ""}]`.trim(),
    )
    .join("");

/**
 * Runs one tool of the agent by hand (the studio's playground), the way a call of the model runs:
 * the arguments parsed by the tool's schema, the one gate (`decideCall`: the session's boundary,
 * then the middleware `onPermission` hooks around the agent's permission decider, for this exact
 * input in the session's permission context),
 * and the tool called under that decision with the session's tool context. An ask runs only with
 * `approved`; a deny never runs. Works on a copy of `state`: the session is not changed (the
 * tool's own side effects, such as a file it writes, happen).
 */
export async function tryTool(
  config: RunConfig,
  state: AgentState,
  name: string,
  input: unknown,
  options: TryToolOptions = {},
): Promise<ToolTrial> {
  const tool = config.toolkit.get(name);
  if (!tool) {
    const names = config.toolkit.list().map((t) => t.name);
    throw new AgentScopeError({
      type: "not_found",
      message: `the agent has no tool "${name}"; its tools: ${names.join(", ") || "none"}`,
    });
  }
  let parsed: unknown;
  try {
    parsed = tool.parse(input);
  } catch (error) {
    const detail = error instanceof ToolInputError ? error.message : toErrorInfo(error).message;
    throw new AgentScopeError({
      type: "invalid_request",
      message: `input: invalid arguments for ${name}: ${detail}`,
    });
  }
  const copy = structuredClone(state);
  const call = { id: `playground_${Date.now().toString(36)}`, name };
  // The agent's decider behind the middleware's onPermission hooks, as a reply composes them
  // (their events and stop requests have no reply to go to here: dropped).
  const chain = new MiddlewareRunner(
    config.middlewares,
    { state: copy, agentName: config.name, replyId: () => call.id, emit() {}, requestStop() {} },
    (request) => config.decide(request.tool, request.input, request.permission),
    () => Promise.reject(new Error("the playground runs the tool itself")),
  );
  const verdict = await decideCall({
    call,
    subject: tool,
    input: parsed,
    context: copy.permission,
    decide: (value, context) => chain.decide({ tool, input: value, permission: context }),
    ...(options.approved ? { approval: { edited: false as const } } : {}),
  });
  const { decision } = verdict;
  const trial: ToolTrial = {
    tool: name,
    decision: {
      behavior: decision.behavior,
      reason: decision.reason,
      ...(decision.rule ? { rule: formatRule(decision.rule) } : {}),
      ...(decision.safety ? { safety: true } : {}),
      ...(decision.suggestedRules?.length ? { suggestedRules: decision.suggestedRules } : {}),
    },
    ran: false,
  };
  if (verdict.behavior !== "allow") return trial;
  const ctx: ToolContext = {
    signal: options.signal ?? new AbortController().signal,
    sessionId: copy.sessionId,
    replyId: call.id,
    toolCallId: call.id,
    state: copy.toolContext,
    permission: copy.permission,
    requestStop: () => {},
    source: config.name,
  };
  trial.ran = true;
  trial.approvedBy = verdict.decided.approvedBy;
  try {
    const value = await verdict.decided.run(call, parsed, (checked) => tool.call(checked, ctx));
    const parts: OutputPart[] = [];
    if (isAsyncIterable(value)) for await (const chunk of value) parts.push(chunkToPart(chunk));
    else parts.push(...valueToParts(value));
    trial.result = { state: "success", output: textOf(parts) };
  } catch (error) {
    const output =
      ToolError.isInstance(error) && error.output !== undefined
        ? textOf(valueToParts(error.output))
        : toErrorInfo(error).message;
    trial.result = { state: "error", output };
  }
  return trial;
}
