import type { Middleware } from "../agent/index.js";
import { normalizeRequest } from "./normal-msg.js";

/** The CUSTOM event name `evalRecorder` emits before each model call. */
export const REQUEST_EVENT = "eval.request";

/**
 * Middleware that writes each model request (system prompt, tools offered, messages) into the reply's
 * event stream as a CUSTOM `eval.request` event, so a trace or a service's event log holds everything
 * a case needs: `caseFromTrace` then pins the requests too, and a replay reports a prompt or tool
 * change at the first call it affects. Costs one event per model call; add it where you record.
 */
export function evalRecorder(): Middleware {
  return {
    name: "eval-recorder",
    onModelCall(request, ctx, next) {
      ctx.emit({
        type: "CUSTOM",
        name: REQUEST_EVENT,
        value: normalizeRequest(request.messages, request.options.tools),
      });
      return next(request);
    },
  };
}
