import { z } from "zod";
import { type ToolCallBlock, ToolCallBlockSchema } from "../message/index.js";

/**
 * One answer to a confirmation: the user may edit the call's arguments and add rules to remember.
 * What a client sends (`POST /v1/sessions/:id/confirm`) and what USER_CONFIRM_RESULT carries.
 */
export interface ConfirmResult {
  confirmed: boolean;
  toolCall: Pick<ToolCallBlock, "id" | "name" | "input"> & Partial<ToolCallBlock>;
  /** Permission rules (string form, e.g. `Bash(git status:*)`) to allow from now on. */
  rules?: string[];
  /** Shown to the model when the call is refused. */
  reason?: string;
}

export const ConfirmResultSchema = z.object({
  confirmed: z.boolean(),
  toolCall: ToolCallBlockSchema.partial().extend({
    id: z.string().min(1),
    name: z.string().min(1),
    input: z.string(),
  }),
  rules: z.array(z.string()).optional(),
  reason: z.string().optional(),
});
