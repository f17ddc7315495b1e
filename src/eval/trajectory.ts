import type { AgentEvent } from "../event/index.js";
import { type Msg, textOf } from "../message/index.js";
import type { RecordedToolCall, RecordedTurn } from "./case.js";
import { type ObservedCall, turnOfCall } from "./observed-model.js";

/** What one run of a case did: its model turns (with decisions and results) and its outcome. */
export interface Trajectory {
  turns: RecordedTurn[];
  /** The assistant Msg of each reply, in order. */
  replies: Msg[];
  /** The text of the last reply. */
  finalText: string;
  structuredOutput?: unknown;
  finishedReason?: string;
  usage: { inputTokens: number; outputTokens: number };
  latencyMs: number;
  /** Events of the top-level agent. */
  events: number;
}

interface CallFacts {
  asked?: boolean;
  confirmed?: boolean;
  state?: string;
  output: string;
}

/** The tool calls of a trajectory, in the order the model made them. */
export function toolCallsOf(trajectory: Pick<Trajectory, "turns">): RecordedToolCall[] {
  return trajectory.turns.flatMap((turn) => turn.toolCalls ?? []);
}

/**
 * Collects what the events of a run say about each tool call (asked, answered, denied, its result)
 * and joins it with the model calls the ObservedModel saw. Sub-agent events are left out.
 */
export class TrajectoryBuilder {
  private readonly facts = new Map<string, CallFacts>();
  private count = 0;
  private structuredOutput: unknown;
  private finishedReason: string | undefined;

  observe(event: AgentEvent): void {
    if (event.source?.includes("/")) return;
    this.count += 1;
    switch (event.type) {
      case "REQUIRE_USER_CONFIRM":
        for (const call of event.toolCalls) this.fact(call.id).asked = true;
        break;
      case "USER_CONFIRM_RESULT":
        for (const answer of event.confirmResults) this.fact(answer.toolCall.id).confirmed = answer.confirmed;
        break;
      case "TOOL_RESULT_TEXT_DELTA":
        this.fact(event.toolCallId).output += event.delta;
        break;
      case "TOOL_RESULT_END":
        this.fact(event.toolCallId).state = event.state;
        break;
      case "REPLY_END":
        this.finishedReason = event.finishedReason;
        if (event.structuredOutput !== undefined) this.structuredOutput = event.structuredOutput;
        break;
    }
  }

  build(calls: readonly ObservedCall[], replies: Msg[], latencyMs: number): Trajectory {
    const turns = calls.map((call) => {
      const turn = turnOfCall(call);
      for (const toolCall of turn.toolCalls ?? []) this.complete(toolCall);
      return turn;
    });
    const usage = { inputTokens: 0, outputTokens: 0 };
    for (const turn of turns) {
      usage.inputTokens += turn.usage?.inputTokens ?? 0;
      usage.outputTokens += turn.usage?.outputTokens ?? 0;
    }
    const last = replies.at(-1);
    const trajectory: Trajectory = {
      turns,
      replies,
      finalText: last ? textOf(last) : "",
      usage,
      latencyMs,
      events: this.count,
    };
    const structured = this.structuredOutput ?? last?.structuredOutput;
    if (structured !== undefined) trajectory.structuredOutput = structured;
    const reason = this.finishedReason ?? last?.finishedReason;
    if (reason !== undefined) trajectory.finishedReason = reason;
    return trajectory;
  }

  private complete(call: RecordedToolCall): void {
    const facts = this.facts.get(call.id);
    if (!facts) return;
    if (facts.asked) call.decision = "ask";
    else if (facts.state === "denied") call.decision = "deny";
    else if (facts.state !== undefined) call.decision = "allow";
    if (facts.confirmed !== undefined) call.confirmed = facts.confirmed;
    if (facts.state !== undefined) call.result = { state: facts.state, output: facts.output };
  }

  private fact(id: string): CallFacts {
    let facts = this.facts.get(id);
    if (!facts) {
      facts = { output: "" };
      this.facts.set(id, facts);
    }
    return facts;
  }
}
