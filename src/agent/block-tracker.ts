import type { TextBlock, TextBlockExtras } from "../message/index.js";
import type { ChatChunk, ChatFinal } from "../model/core.js";

/** A block being streamed: its kind and its id in the reply. */
export type OpenBlock = { kind: "text" | "thinking" | "tool_call" | "data"; id: string };

/** Maps provider block ids to reply block ids and remembers which blocks are still open. */
export class BlockTracker {
  private readonly ids = new Map<string, OpenBlock>();
  private readonly openOrder: OpenBlock[] = [];
  private lastKey: string | undefined;
  private lastBlock: OpenBlock | undefined;

  find(key: string): OpenBlock | undefined {
    if (key === this.lastKey) return this.lastBlock;
    const block = this.ids.get(key);
    if (block) {
      this.lastKey = key;
      this.lastBlock = block;
    }
    return block;
  }

  open(key: string, block: OpenBlock): void {
    this.ids.set(key, block);
    this.openOrder.push(block);
    this.lastKey = key;
    this.lastBlock = block;
  }

  close(key: string): void {
    const block = this.ids.get(key);
    const index = block ? this.openOrder.indexOf(block) : -1;
    if (index >= 0) this.openOrder.splice(index, 1);
  }

  any(): boolean {
    return this.ids.size > 0;
  }

  /** The blocks still open, in the order they opened; none is open afterwards. */
  takeOpen(): OpenBlock[] {
    return this.openOrder.splice(0, this.openOrder.length);
  }
}

/** A complete block of a final chunk as one delta (for blocks the provider never streamed). */
export function fullDelta(
  block: Exclude<ChatFinal["content"][number], { type: "tool_result" }>,
): Exclude<ChatChunk, ChatFinal> {
  switch (block.type) {
    case "text":
      return { type: "text", blockId: block.id, delta: block.text };
    case "thinking":
      return { type: "thinking", blockId: block.id, delta: block.thinking };
    case "tool_call":
      return { type: "tool_call", blockId: block.id, name: block.name, delta: block.input };
    case "data":
      return {
        type: "data",
        blockId: block.id,
        mediaType: block.source.mediaType ?? "application/octet-stream",
        delta: block.source.type === "base64" ? block.source.data : "",
      };
  }
}

/** The reply id of the first block after `index` in `content` that was streamed (undefined: none). */
export function nextStreamedId(
  content: ChatFinal["content"],
  index: number,
  blocks: BlockTracker,
): string | undefined {
  for (let i = index + 1; i < content.length; i++) {
    const open = blocks.find(content[i]!.id);
    if (open !== undefined) return open.id;
  }
  return undefined;
}

const TEXT_EXTRAS = ["refusal", "itemId", "itemStatus", "phase", "provider", "citations"] as const;

/** The provider extras of a final text block, or undefined when it has none. */
export function textExtras(block: TextBlock): TextBlockExtras | undefined {
  const extras: Record<string, unknown> = {};
  let found = false;
  for (const key of TEXT_EXTRAS) {
    if (block[key] === undefined) continue;
    extras[key] = block[key];
    found = true;
  }
  return found ? (extras as TextBlockExtras) : undefined;
}
