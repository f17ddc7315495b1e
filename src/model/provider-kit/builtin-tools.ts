import { AgentScopeError } from "../../message/index.js";
import type { BuiltinTool } from "../types.js";

/** A provider's wire form of each built-in tool it has (undefined: it has none of that type). */
export type BuiltinToolMapping = (tool: BuiltinTool) => Record<string, unknown> | undefined;

/** The wire forms of `tools`; a tool the provider does not have is an error that names it. */
export function builtinToolsFor(
  provider: string,
  tools: readonly BuiltinTool[] | undefined,
  mapping: BuiltinToolMapping,
): Array<Record<string, unknown>> {
  return (tools ?? []).map((tool) => {
    const wire = mapping(tool);
    if (wire === undefined) {
      throw new AgentScopeError({
        type: "invalid_request",
        message: `${provider} has no built-in tool "${tool.type}"; remove it from builtinTools`,
        source: provider,
      });
    }
    return wire;
  });
}
