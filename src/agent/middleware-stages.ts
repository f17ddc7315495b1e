import type { AgentEvent } from "../event/index.js";
import { composeHooks, MiddlewareRunner } from "./middleware-runner.js";
import type { ReplyInput } from "./reply-input.js";
import type { ReplyRun } from "./reply-run.js";
import type { ReplyStages } from "./reply-stages.js";
import { runDecided } from "./run-tool.js";

/** The stages of a reply through its agent's middleware chains, composed once per reply. */
export function middlewareStages(run: ReplyRun): ReplyStages {
  const { config, state } = run;
  const runner = new MiddlewareRunner(
    config.middlewares,
    {
      state,
      agentName: config.name,
      replyId: () => run.msg?.id ?? "",
      emit: (event) => run.emitInit(event),
      requestStop: (reason, metadata) => {
        if (run.stopReason !== undefined) return;
        run.stopReason = reason;
        if (metadata !== undefined) run.stopMetadata = metadata;
      },
    },
    (request) => config.decide(request.tool, request.input, request.permission),
    (request) => runDecided(run, request),
  );
  return {
    wrapped: true,
    onEvent: runner.watchesEvents ? (event) => runner.onEvent(event) : undefined,
    reply: (input: ReplyInput, next: (input: ReplyInput) => AsyncIterable<AgentEvent>) =>
      composeHooks<ReplyInput, AsyncIterable<AgentEvent>>(
        config.middlewares,
        (m) => m.onReply,
        (m) => runner.contextFor(m),
        next,
      )(input),
    systemPrompt: (prompt) => runner.systemPrompt(prompt),
    beforeReasoning: (iteration) => runner.beforeReasoning(iteration),
    afterReasoning: (reply) => runner.afterReasoning(reply),
    callModel: (request) => runner.callModel(request),
    decide: (tool, input, permission) => runner.decide({ tool, input, permission }),
    callTool: (call, tool, input, ctx, decided) =>
      decided.run(call, input, (value) => runner.callTool({ call, tool, input: value, ctx, decided })),
  };
}
