import { type ConfirmResult, type RequireUserConfirmEvent, userConfirmResult } from "../event/index.js";
import type { ConfirmAnswer, RecordedToolCall } from "./case.js";
import { EvalCaseError } from "./eval-error.js";

/**
 * Answers confirmations from a case: each asking call gets the answer with its id, else the next
 * unused answer for its tool, else an answer that names neither, else what the recording says the
 * person answered for that call. A call with no answer at all is an EvalCaseError naming it.
 */
export class ConfirmAnswers {
  private readonly used = new Set<ConfirmAnswer>();

  constructor(
    private readonly caseId: string,
    private readonly answers: readonly ConfirmAnswer[],
    private readonly recorded: readonly RecordedToolCall[],
  ) {}

  answer(event: RequireUserConfirmEvent): ReturnType<typeof userConfirmResult> {
    const confirmResults = event.toolCalls.map((call): ConfirmResult => {
      const answer = this.find(call.id, call.name);
      const result: ConfirmResult = {
        confirmed: answer.confirmed,
        toolCall: {
          id: call.id,
          name: call.name,
          input: answer.input === undefined ? call.input : JSON.stringify(answer.input),
        },
      };
      if (answer.rules) result.rules = answer.rules;
      if (answer.reason) result.reason = answer.reason;
      return result;
    });
    return userConfirmResult({ replyId: event.replyId, confirmResults });
  }

  private find(id: string, tool: string): ConfirmAnswer {
    const pick = (match: (answer: ConfirmAnswer) => boolean) => {
      const found = this.answers.find((answer) => !this.used.has(answer) && match(answer));
      if (found && (found.toolCallId !== undefined || found.tool !== undefined)) this.used.add(found);
      return found;
    };
    const answer =
      pick((a) => a.toolCallId === id) ??
      pick((a) => a.toolCallId === undefined && a.tool === tool) ??
      pick((a) => a.toolCallId === undefined && a.tool === undefined);
    if (answer) return answer;
    const recorded = this.recorded.find((call) => call.id === id);
    if (recorded?.confirmed !== undefined) return { confirmed: recorded.confirmed };
    // A recorded call that ran was approved; one the user refused carries confirmed: false above.
    if (recorded?.result && recorded.result.state !== "denied") return { confirmed: true };
    throw new EvalCaseError(
      `case "${this.caseId}": the agent asked to confirm ${tool} (call ${id}) and the case has no answer for it; add one under "confirmations"`,
    );
  }
}
