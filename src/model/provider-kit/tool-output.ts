import type { DataBlock, TextBlock, ToolResultBlock } from "../../message/index.js";
import { mediaTypeOf } from "../media.js";
import { acceptsMedia, mainTypeOf } from "./media.js";

/** A tool result split for a provider that takes only text in tool results. */
export interface SplitToolOutput {
  /** The text to send as the tool result; notes where media went. */
  text: string;
  /** Media to send right after, in a user turn, each preceded by a text label. */
  promoted: Array<TextBlock | DataBlock>;
}

/**
 * Splits a tool result into text plus media promoted to a user turn (for providers that cannot take
 * media inside a tool result). Media the provider cannot take at all is described in the text.
 */
export function splitToolOutput(
  result: Pick<ToolResultBlock, "id" | "output">,
  accepted: readonly string[],
): SplitToolOutput {
  const { output } = result;
  if (typeof output === "string") return { text: output, promoted: [] };
  const texts: string[] = [];
  const promoted: Array<TextBlock | DataBlock> = [];
  let n = 0;
  for (const block of output) {
    if (block.type === "text") {
      texts.push(block.text);
      continue;
    }
    const mediaType = mediaTypeOf(block);
    const kind = mainTypeOf(mediaType);
    if (acceptsMedia(accepted, mediaType)) {
      n += 1;
      const label = `${result.id}#${n}`;
      texts.push(
        `<system-reminder>A(n) ${kind} file is returned and shown to you next as [${label}].</system-reminder>`,
      );
      promoted.push(
        { type: "text", id: `${label}-label`, text: `[${label}] (${kind} file from the tool result):` },
        block,
      );
    } else if (block.source.type === "url") {
      texts.push(
        `<system-reminder>A(n) ${kind} file is returned at the URL: ${block.source.url}</system-reminder>`,
      );
    } else {
      texts.push(
        `<system-reminder>A(n) ${kind} file (${mediaType}) is returned but this model cannot read it.</system-reminder>`,
      );
    }
  }
  return { text: texts.join("\n"), promoted };
}

/** The text of a tool result; media is described, not included. */
export function toolOutputText(result: Pick<ToolResultBlock, "id" | "output">): string {
  return splitToolOutput(result, []).text;
}
