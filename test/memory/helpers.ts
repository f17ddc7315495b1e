import { type MemoryOperation, SAVE_MEMORIES_TOOL } from "../../src/memory/index.js";
import type { Msg } from "../../src/message/index.js";
import type { ScriptedTurn } from "../../src/testing/index.js";

/** An extraction turn: the forced tool call with these operations. */
export function extractTurn(operations: MemoryOperation[]): ScriptedTurn {
  return {
    toolCalls: [{ name: SAVE_MEMORIES_TOOL, input: { operations } }],
    usage: { inputTokens: 120, outputTokens: 30 },
  };
}

/** The known memories the extractor was shown, as id → text (read from its prompt). */
export function knownIn(messages: Msg[]): Map<string, string> {
  const prompt = messages
    .map((m) => m.content.map((b) => (b.type === "text" ? b.text : "")).join(""))
    .join("\n");
  return new Map(
    [...prompt.matchAll(/- id (\S+) \((?:fact|preference)\): (.*)/g)].map((m) => [m[1]!, m[2]!]),
  );
}
