import type { Attributes } from "@opentelemetry/api";
import type { DecisionEvent } from "../event/index.js";

/** The name of the span event a decision record becomes on its reply's `invoke_agent` span. */
export const DECISION_SPAN_EVENT = "agentscope.decision";

/**
 * A DECISION event as span event attributes (`agentscope.decision.*`), so who approved what reaches
 * whatever observability stack receives the traces. The call's arguments are left out (they may hold
 * secrets; the record in the session keeps them); lists are joined JSON text.
 */
export function decisionAttributes(event: DecisionEvent): Attributes {
  const attributes: Attributes = {
    "agentscope.decision.id": event.id,
    "agentscope.decision.outcome": event.outcome,
    "agentscope.decision.tool_call.id": event.toolCallId,
    "agentscope.decision.tool.name": event.toolName,
    "agentscope.decision.actor": event.actor,
    "agentscope.decision.channel": event.channel,
    "agentscope.decision.mode": event.mode,
  };
  const optional = {
    rule: event.rule,
    policy: event.policy,
    reason: event.reason,
    source: event.source,
    expires_at: event.expiresAt,
    rules: event.rules && JSON.stringify(event.rules),
    approvers: event.approvers && JSON.stringify(event.approvers),
    diff_paths: event.diff && JSON.stringify(event.diff.map((change) => change.path)),
  };
  for (const [key, value] of Object.entries(optional))
    if (value !== undefined) attributes[`agentscope.decision.${key}`] = value;
  return attributes;
}
