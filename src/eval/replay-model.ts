import { ScriptedModel, type ScriptedTurn } from "../testing/index.js";
import type { RecordedTurn } from "./case.js";

/** A recorded turn as a scripted model turn: the same thinking, text, tool calls (ids kept) and usage. */
export function scriptedTurnOf(turn: RecordedTurn): ScriptedTurn {
  const scripted: ScriptedTurn = {};
  if (turn.thinking !== undefined) scripted.thinking = turn.thinking;
  if (turn.text !== undefined) scripted.text = turn.text;
  if (turn.toolCalls?.length)
    scripted.toolCalls = turn.toolCalls.map((call) => ({ id: call.id, name: call.name, input: call.input }));
  if (turn.usage) scripted.usage = turn.usage;
  return scripted;
}

/**
 * The model of a deterministic replay: it answers each call with the next recorded turn, whatever
 * the agent asked. Running out of turns (the agent wants a call the recording lacks) is an error.
 */
export function replayModel(turns: readonly RecordedTurn[], name = "replay"): ScriptedModel {
  return new ScriptedModel(turns.map(scriptedTurnOf), { name, chunkSize: 64 });
}
