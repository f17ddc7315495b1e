import type { AgentEvent } from "../event/index.js";
import type { ReplyInput } from "./reply-input.js";
import type { ReplyStages } from "./reply-stages.js";
import type { PermissionDecider } from "./types.js";

/** The stages of a reply of an agent without middleware: each stage called straight. */
export function directStages(decide: PermissionDecider): ReplyStages {
  return {
    wrapped: false,
    onEvent: undefined,
    reply: (input: ReplyInput, next: (input: ReplyInput) => AsyncIterable<AgentEvent>) => next(input),
    systemPrompt: (prompt) => prompt,
    beforeReasoning: () => undefined,
    afterReasoning: () => undefined,
    callModel: (request) => request.model.stream(request.messages, request.options),
    decide,
    callTool: (call, tool, input, ctx, decided) => decided.run(call, input, (value) => tool.call(value, ctx)),
  };
}
