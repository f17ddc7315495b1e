import { createEvent } from "../event/index.js";
import { type Msg, newId } from "../message/index.js";
import { ReplyStateError } from "./errors.js";
import { resolveStructuredMode } from "./native-structured-output.js";
import { replyOutput } from "./reply-output.js";
import type { ReplyRun } from "./reply-run.js";

/**
 * Start: the new messages join the context, then the reply Msg (REPLY_START) and its reply context.
 * Refused before anything changes while a reply waits for an answer, or when the structured-output
 * mode cannot be had ("native" on a model without it).
 */
export function start(run: ReplyRun, input: Msg | Msg[] | undefined): void {
  const { config, state, options } = run;
  const reply = state.replyContext;
  if (reply?.waitingFor) {
    throw new ReplyStateError(
      `reply "${reply.replyId}" is waiting for ${reply.waitingFor === "user_confirm" ? "a confirmation" : "external results"}; answer it or send USER_INTERRUPT before a new message`,
    );
  }
  const schema = options.structuredOutput;
  const models = config.fallbackModel ? [config.model, config.fallbackModel] : [config.model];
  const mode = schema
    ? resolveStructuredMode(
        options.structuredOutputMode ?? "tool",
        models,
        config.toolkit.schemas().length > 0,
      )
    : "tool";
  run.output = replyOutput(schema, mode, config.model);
  state.context.push(...(input === undefined ? [] : Array.isArray(input) ? input : [input]));
  const replyId = newId("reply");
  const event = createEvent("REPLY_START", {
    replyId,
    sessionId: state.sessionId,
    name: config.name,
    role: "assistant",
  });
  run.msg = {
    id: replyId,
    name: config.name,
    role: "assistant",
    content: [],
    metadata: {},
    createdAt: event.createdAt,
  };
  state.context.push(run.msg);
  state.replyContext = { replyId, iteration: 0 };
  if (schema) state.replyContext.structuredOutput = true;
  if (schema && mode === "native") state.replyContext.structuredOutputMode = "native";
  run.push(event);
}
