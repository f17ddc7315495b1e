import { z } from "zod";
import { createEvent } from "../event/index.js";
import type { PermissionMode } from "../permission/index.js";
import { functionTool } from "./function-tool.js";
import { ToolError } from "./tool-error.js";
import type { Tool } from "./types.js";

/** The CUSTOM event a session's permission mode change is; its value is a `PermissionModeChange`. */
export const PERMISSION_MODE_CHANGED = "permission_mode_changed";

/** What a `permission_mode_changed` event carries. */
export interface PermissionModeChange {
  from: PermissionMode;
  to: PermissionMode;
  /** The call that changed it (the approved plan proposal). */
  toolCallId: string;
  plan: string;
}

/** Where the last approved plan is kept in `ToolContext.state` (the session's tool data). */
export const APPROVED_PLAN_KEY = "agentscope.plan";

export interface PlanToolOptions {
  /**
   * The modes the approved plan may switch to (default: default, accept_edits, dont_ask, explore).
   * The model proposes one in `mode`; the person approving may edit it to another of these.
   * List `bypass` here only if a person should be able to switch to it from a plan.
   */
  modes?: readonly Exclude<PermissionMode, "plan">[];
}

const DEFAULT_MODES: readonly Exclude<PermissionMode, "plan">[] = [
  "default",
  "accept_edits",
  "dont_ask",
  "explore",
];

/**
 * `PlanPropose`: how an agent in plan mode gets out of it. In plan mode only read-only tools and the
 * task tools run; the agent writes its plan and calls this tool, which always asks (a safety ask: a
 * person approves, no allow rule can). Approved (its `mode` as the person left or edited it), the
 * session switches to that mode (a CUSTOM `permission_mode_changed` event, the plan kept in the
 * session's tool data) and the agent carries on; refused, the model reads why and plans again.
 * Outside plan mode it changes nothing and says so.
 */
export function planTool(options: PlanToolOptions = {}): Tool {
  const modes = options.modes ?? DEFAULT_MODES;
  if (
    modes.length === 0 ||
    modes.some((mode) => !["default", "accept_edits", "dont_ask", "explore", "bypass"].includes(mode))
  ) {
    throw new TypeError(
      `planTool: modes must be a non-empty list of default, accept_edits, dont_ask, explore, bypass`,
    );
  }
  return functionTool({
    name: "PlanPropose",
    description:
      "In plan mode, proposes your plan to the user. Research with read-only tools first, then call this with the " +
      "whole plan (markdown: the steps, the files to change, how to check it). The user approves it (possibly " +
      "switching `mode`) or refuses with a reason; after approval you may carry out the plan.",
    input: z.object({
      plan: z.string().min(1).max(20_000).describe("The plan, in full"),
      mode: z
        .enum(modes as [Exclude<PermissionMode, "plan">, ...Exclude<PermissionMode, "plan">[]])
        .optional()
        .describe(`The permission mode to continue in once approved (default "${modes[0]}")`),
    }),
    leavesPlanMode: true,
    pathsOf: () => [],
    // Outside plan mode the call changes nothing (see execute): no need to ask.
    checkPermissions: (_input, context) =>
      context.mode === "plan"
        ? { behavior: "passthrough" }
        : { behavior: "allow", reason: "outside plan mode PlanPropose changes nothing" },
    execute: ({ plan, mode }, ctx) => {
      if (ctx.permission.mode !== "plan") {
        throw new ToolError(
          `the session is not in plan mode (it is in ${ctx.permission.mode} mode): go on with the work`,
        );
      }
      const to = mode ?? modes[0]!;
      const change: PermissionModeChange = { from: "plan", to, toolCallId: ctx.toolCallId, plan };
      ctx.permission.mode = to;
      ctx.state[APPROVED_PLAN_KEY] = {
        plan,
        mode: to,
        toolCallId: ctx.toolCallId,
        approvedAt: new Date().toISOString(),
      };
      ctx.emit?.(
        createEvent("CUSTOM", { replyId: ctx.replyId, name: PERMISSION_MODE_CHANGED, value: change }),
      );
      return `The plan is approved; the session is now in ${to} mode. Carry out the plan.`;
    },
  });
}
