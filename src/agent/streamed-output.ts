import type { Usage } from "../message/index.js";
import type { ChatChunk, ChatFinal } from "../model/core.js";
import type { GuardrailTrip, runGuardrails } from "./guardrail.js";

/** The look-ahead of streamed output guardrails when the options give none (characters). */
export const DEFAULT_LOOK_AHEAD = 64;

/** How the streamed answer is guarded: the guardrails over a text, and what a trip does. */
export interface StreamedOutputGuard {
  /** The streamed output guardrails over one window of text: its rewrite, or the first trip. */
  check(text: string): ReturnType<typeof runGuardrails>;
  /** At most this many characters of a text block are held back at once. */
  lookAhead: number;
  /** A trip: the reply ends after this step (REQUEST_STOP with the trip). */
  tripped(trip: GuardrailTrip): void;
  /** The input tokens of the call, estimated, for a call cut short by a trip (the provider's count never comes). */
  inputTokens(): number;
}

type Delta = Exclude<ChatChunk, ChatFinal>;

/**
 * A model call's chunks with the text of each text block guarded as it streams. The last `lookAhead`
 * characters of the block are held back: each delta is added to them, the guardrails run over that
 * window, and what lies before its last `lookAhead` characters goes out (rewritten). While a rewrite
 * reaches into those last characters (a finding that may still grow), only the text before the
 * rewrite goes out: the window then holds the finding too, until `lookAhead` characters follow it. A value no longer
 * than the look-ahead that arrives split across deltas is therefore whole in one window before any of
 * it goes out. The held text goes out (checked) when the block ends: another block's chunk, or the
 * final chunk. The final chunk's text blocks carry what went out, so deltas and stored text agree.
 * A trip ends the call at once: the rest of the stream is dropped (the provider call is ended), the
 * held text never goes out, and an empty final chunk with estimated usage ends the call.
 */
export async function* guardStreamedText(
  chunks: AsyncIterable<ChatChunk>,
  guard: StreamedOutputGuard,
): AsyncGenerator<ChatChunk> {
  const { lookAhead } = guard;
  const source = chunks[Symbol.asyncIterator]();
  /** What went out of each streamed text block (provider block id → text). */
  const sent = new Map<string, string>();
  let heldId: string | undefined;
  let held = "";
  let received = 0;
  let trip: GuardrailTrip | undefined;
  let ended = false;

  /** The held text, checked whole (the block ended): the delta to send, or undefined (nothing, or a trip). */
  const release = async (): Promise<Delta | undefined> => {
    const blockId = heldId;
    if (blockId === undefined) return undefined;
    heldId = undefined;
    const text = held;
    held = "";
    if (text === "") return undefined;
    const verdict = await guard.check(text);
    if ("trip" in verdict) {
      trip = verdict.trip;
      return undefined;
    }
    return out(blockId, verdict.text);
  };
  const out = (blockId: string, text: string): Delta | undefined => {
    sent.set(blockId, (sent.get(blockId) ?? "") + text);
    return text === "" ? undefined : { type: "text", blockId, delta: text };
  };

  try {
    for (let item = await source.next(); ; item = await source.next()) {
      if (item.done) {
        ended = true;
        return; // no final chunk: the caller says so
      }
      const chunk = item.value;
      if (chunk.type === "text") {
        received += chunk.delta.length;
        if (heldId !== chunk.blockId) {
          const rest = await release();
          if (trip) break;
          if (rest) yield rest;
          heldId = chunk.blockId;
          if (!sent.has(chunk.blockId)) sent.set(chunk.blockId, "");
        }
        held += chunk.delta;
        if (held.length <= lookAhead) continue;
        const verdict = await guard.check(held);
        if ("trip" in verdict) {
          trip = verdict.trip;
          break;
        }
        const text = verdict.text;
        if (text !== held && commonSuffix(held, text) < lookAhead) {
          // A finding reaches into the held tail: it may still grow with the next delta (a card
          // number's first digits look like a phone number). Only what lies before it goes out.
          const cut = Math.min(commonPrefix(held, text), held.length - lookAhead);
          const delta = cut > 0 ? out(chunk.blockId, held.slice(0, cut)) : undefined;
          held = held.slice(Math.max(cut, 0));
          if (delta) yield delta;
          continue;
        }
        let cut = text.length - lookAhead;
        // Never split a surrogate pair between what goes out and what is held.
        if (cut > 0 && isHighSurrogate(text.charCodeAt(cut - 1))) cut -= 1;
        held = text.slice(cut);
        const delta = cut > 0 ? out(chunk.blockId, text.slice(0, cut)) : undefined;
        if (delta) yield delta;
        continue;
      }
      const rest = await release();
      if (trip) break;
      if (rest) yield rest;
      if (chunk.type !== "final") {
        yield chunk;
        continue;
      }
      const final = await withSentText(chunk, sent, guard);
      if ("trip" in final) {
        trip = final.trip;
        break;
      }
      ended = true;
      yield final;
      return;
    }
  } finally {
    // A trip, or a reader that left: the provider call is ended, not read on.
    if (!ended) void Promise.resolve(source.return?.()).catch(() => {});
  }
  guard.tripped(trip);
  const usage: Usage = {
    inputTokens: guard.inputTokens(),
    outputTokens: Math.ceil(received / 4), // about four characters a token, as the estimator counts
  };
  yield { type: "final", content: [], usage, stopReason: "other" };
}

/**
 * The final chunk with each text block's text as it went out; a block that never streamed (the
 * provider sent it whole in the final chunk) is checked whole here.
 */
async function withSentText(
  final: ChatFinal,
  sent: ReadonlyMap<string, string>,
  guard: StreamedOutputGuard,
): Promise<ChatFinal | { trip: GuardrailTrip }> {
  const content: ChatFinal["content"] = [];
  for (const block of final.content) {
    if (block.type !== "text") {
      content.push(block);
      continue;
    }
    let text = sent.get(block.id);
    if (text === undefined) {
      if (block.text === "") {
        content.push(block);
        continue;
      }
      const verdict = await guard.check(block.text);
      if ("trip" in verdict) return verdict;
      text = verdict.text;
    }
    content.push(text === block.text ? block : { ...block, text });
  }
  return { ...final, content };
}

function commonPrefix(a: string, b: string): number {
  let i = 0;
  while (i < a.length && i < b.length && a.charCodeAt(i) === b.charCodeAt(i)) i++;
  return i > 0 && isHighSurrogate(a.charCodeAt(i - 1)) ? i - 1 : i;
}

function commonSuffix(a: string, b: string): number {
  let i = 0;
  while (i < a.length && i < b.length && a.charCodeAt(a.length - 1 - i) === b.charCodeAt(b.length - 1 - i))
    i++;
  return i;
}

function isHighSurrogate(code: number): boolean {
  return code >= 0xd800 && code <= 0xdbff;
}
